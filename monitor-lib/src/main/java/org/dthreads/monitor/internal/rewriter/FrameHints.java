package org.dthreads.monitor.internal.rewriter;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.objectweb.asm.Label;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.commons.AnalyzerAdapter;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FrameNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LookupSwitchInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TableSwitchInsnNode;
import org.objectweb.asm.tree.TryCatchBlockNode;

/**
 * The stack map frames of one rewritten method derived from the frames its compiler wrote, instead of ASM's
 * {@code COMPUTE_FRAMES} (a fixed-point data-flow analysis of the whole method with a common super-class for every
 * merge: about a sixth of the agent's loading time, issue 16).
 *
 * <p>The method is read with its frames expanded ({@code ClassReader.EXPAND_FRAMES}) and the tree passes keep them:
 * the frames of the code they copy are copied with it ({@link MonitorBlockSplitter}), the lowering of a
 * {@code synchronized} method adds its lock local to every frame of the body and writes its release handler's frame
 * itself ({@link SynchronizedMethodLowering}). Every other label a pass makes a branch or handler target is announced
 * here with where its frame comes from:
 * <ul>
 *   <li>{@link #afterPop}: the state just before {@code source} with the top of the stack popped (the target of the
 *       {@code ifne}/{@code ifeq} that follows a one-argument test of the value on top: the block splitter's
 *       {@code isEmulated}, the reflective guard's {@code isMonitorOperation});</li>
 *   <li>{@link #handler}: the locals just before {@code source}, one exception on the stack (the overflow guard's
 *       handlers, whose ranges start at {@code source});</li>
 *   <li>{@link #fallThrough}: the state reached by falling through to the target (the reflective guard's join,
 *       whose other edge comes with the same state).</li>
 * </ul>
 * Each source lies before its target in the instruction list, so one linear pass ({@link AnalyzerAdapter}: the
 * instructions' effect on the types, reset at every frame) finds every state. Each derived frame is the state of
 * its only incoming edge (or of two edges with the same state), so it is what the verifier infers there.
 *
 * <p>The pass then checks that every branch target, handler and instruction after an unconditional jump has one
 * frame. Where the frames cannot be derived (a state unknown at a source: code after an unconditional jump without a
 * frame; an uninitialized object in a state; a frame missing or doubled) the caller computes the method's frames
 * as before ({@link FrameComputation}).
 *
 * <p>Not thread-safe: one instance per method, on the thread that rewrites it.
 */
final class FrameHints {

    private enum Kind { AFTER_POP, HANDLER, FALL_THROUGH }

    private record Hint(Kind kind, AbstractInsnNode source, String exception) {}

    /** A captured state: locals and stack in frame form (one entry per value), or null if unknown. */
    private record State(List<Object> locals, List<Object> stack) {}

    private final Map<LabelNode, Hint> targets = new HashMap<>();
    private final Map<AbstractInsnNode, State> sources = new HashMap<>();

    /** {@code target}'s frame: the state before {@code source}, its top value popped. */
    void afterPop(LabelNode target, AbstractInsnNode source) {
        add(target, new Hint(Kind.AFTER_POP, source, null));
    }

    /** {@code target}'s frame: the locals before {@code source}, {@code exception} (internal name) on the stack. */
    void handler(LabelNode target, AbstractInsnNode source, String exception) {
        add(target, new Hint(Kind.HANDLER, source, exception));
    }

    /** {@code target}'s frame: the state reached by falling through to it. */
    void fallThrough(LabelNode target) {
        add(target, new Hint(Kind.FALL_THROUGH, null, null));
    }

    /**
     * A region was copied ({@link MonitorBlockSplitter}): {@code clones} maps each of its instructions to its copy.
     * A target in the region gets a copy of its hint in the copy, from the copy of its source.
     */
    void copied(Map<AbstractInsnNode, AbstractInsnNode> clones) {
        for (Map.Entry<AbstractInsnNode, AbstractInsnNode> e : clones.entrySet()) {
            Hint hint = e.getKey() instanceof LabelNode label ? targets.get(label) : null;
            if (hint == null || !(e.getValue() instanceof LabelNode copy)) {
                continue;
            }
            AbstractInsnNode source = hint.source == null ? null : clones.get(hint.source);
            if (hint.source == null || source != null) { // else no frame: the check after the pass falls back
                add(copy, new Hint(hint.kind, source, hint.exception));
            }
        }
    }

    private void add(LabelNode target, Hint hint) {
        targets.put(target, hint);
        if (hint.source != null) {
            sources.put(hint.source, null);
        }
    }

    /**
     * Inserts the announced frames into {@code method} and checks that the method has every frame it needs.
     *
     * @return null if it has, else why not (the method's frames must then be computed)
     */
    String insertFrames(MethodNode method, String owner) {
        String problem;
        try {
            problem = derive(method, owner);
        } catch (RuntimeException e) { // AnalyzerAdapter on code it cannot follow
            problem = "derivation failed: " + e;
        }
        return problem != null ? problem : missingFrame(method);
    }

    private String derive(MethodNode method, String owner) {
        if (targets.isEmpty()) {
            return null;
        }
        InsnList code = method.instructions;
        AnalyzerAdapter types = new AnalyzerAdapter(owner, method.access, method.name, method.desc, null);
        for (AbstractInsnNode insn = code.getFirst(); insn != null; insn = insn.getNext()) {
            if (insn instanceof LabelNode label && targets.containsKey(label)) {
                FrameNode frame = frameAt(targets.get(label), types);
                if (frame == null) {
                    return "no state for a frame the rewriting needs";
                }
                code.insert(label, frame); // visited next: the types continue from it
            }
            if (sources.containsKey(insn)) {
                sources.put(insn, state(types.locals, types.stack));
            }
            insn.accept(types);
        }
        return null;
    }

    private FrameNode frameAt(Hint hint, AnalyzerAdapter types) {
        State at = hint.kind == Kind.FALL_THROUGH ? state(types.locals, types.stack) : sources.get(hint.source);
        if (at == null) {
            return null;
        }
        List<Object> stack = switch (hint.kind) {
            case AFTER_POP -> at.stack.isEmpty() ? null : at.stack.subList(0, at.stack.size() - 1);
            case HANDLER -> List.of(hint.exception);
            case FALL_THROUGH -> at.stack;
        };
        if (stack == null) {
            return null;
        }
        return new FrameNode(Opcodes.F_NEW, at.locals.size(), at.locals.toArray(), stack.size(), stack.toArray());
    }

    /** The adapter's state (a long or double takes two entries there) in frame form, or null if unknown. */
    private static State state(List<Object> locals, List<Object> stack) {
        if (locals == null || stack == null) {
            return null; // after an unconditional jump, before the next frame: dead code
        }
        List<Object> l = frameTypes(locals);
        List<Object> s = frameTypes(stack);
        if (l == null || s == null) {
            return null;
        }
        while (!l.isEmpty() && l.get(l.size() - 1) == Opcodes.TOP) {
            l.remove(l.size() - 1);
        }
        return new State(l, s);
    }

    private static List<Object> frameTypes(List<Object> slots) {
        List<Object> out = new ArrayList<>(slots.size());
        for (int i = 0; i < slots.size(); i++) {
            Object type = slots.get(i);
            if (type instanceof Label) {
                return null; // an uninitialized object: rare in monitor code, not worth mapping back to its LabelNode
            }
            out.add(type);
            if (type == Opcodes.LONG || type == Opcodes.DOUBLE) {
                i++;
            }
        }
        return out;
    }

    /**
     * Whether every instruction that needs a frame (a branch target, a handler, the instruction after an
     * unconditional jump) has exactly one: null if so, else the first that does not.
     */
    static String missingFrame(MethodNode method) {
        Set<LabelNode> needFrames = new HashSet<>();
        for (TryCatchBlockNode tcb : method.tryCatchBlocks) {
            needFrames.add(tcb.handler);
        }
        for (AbstractInsnNode insn = method.instructions.getFirst(); insn != null; insn = insn.getNext()) {
            if (insn instanceof JumpInsnNode j) {
                needFrames.add(j.label);
            } else if (insn instanceof TableSwitchInsnNode t) {
                needFrames.add(t.dflt);
                needFrames.addAll(t.labels);
            } else if (insn instanceof LookupSwitchInsnNode l) {
                needFrames.add(l.dflt);
                needFrames.addAll(l.labels);
            }
        }
        boolean needed = false;
        int frames = 0;
        int index = 0;
        for (AbstractInsnNode insn = method.instructions.getFirst(); insn != null; insn = insn.getNext(), index++) {
            if (insn instanceof LabelNode label) {
                needed |= needFrames.contains(label);
            } else if (insn instanceof FrameNode) {
                frames++;
            } else if (insn.getOpcode() >= 0) {
                if (needed ? frames != 1 : frames > 1) {
                    return (frames == 0 ? "no frame" : frames + " frames") + " at instruction " + index + " of " + method.name;
                }
                needed = endsBlock(insn.getOpcode());
                frames = 0;
            }
        }
        return null;
    }

    private static boolean endsBlock(int opcode) {
        return opcode == Opcodes.GOTO || opcode == Opcodes.ATHROW || opcode == Opcodes.TABLESWITCH
                || opcode == Opcodes.LOOKUPSWITCH || opcode == Opcodes.RET || opcode == Opcodes.JSR
                || (opcode >= Opcodes.IRETURN && opcode <= Opcodes.RETURN);
    }
}
