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
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LineNumberNode;
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
 * Each source lies before its target in the instruction list; its state is found from the last frame before it
 * (a target's frame there is derived first), through the instructions' effect on the types
 * ({@link AnalyzerAdapter}). Only those spans are simulated, not the whole method. Each derived frame is the state of
 * its incoming edges (one, or several with the same locals and stack up to locals the handler's code sets itself),
 * so every incoming state is assignable to it. A target inside a region the block splitter copies gets a hint in the
 * copy too ({@link #copied}).
 *
 * <p>The pass then checks that every branch target, handler and instruction after an unconditional jump has one
 * frame, and compresses the frames on the way ({@link CompressedFrames}). Where the frames cannot be derived (a state unknown at a source: code after an unconditional jump without a
 * frame; an uninitialized object in a state; a frame missing or doubled) the caller computes the method's frames
 * as before ({@link FrameComputation}).
 *
 * <p>Not thread-safe: one instance per method, on the thread that rewrites it.
 */
final class FrameHints {

    private enum Kind { AFTER_POP, HANDLER, FALL_THROUGH }

    /** {@code source}: the instruction whose state the frame takes (the target itself for a fall-through). */
    private record Hint(Kind kind, AbstractInsnNode source, String exception) {}

    /** A captured state: locals and stack in frame form (one entry per value). */
    private record State(List<Object> locals, List<Object> stack) {}

    private final Map<LabelNode, Hint> targets = new HashMap<>();
    private final Set<AbstractInsnNode> sources = new HashSet<>();
    private final Set<LabelNode> framed = new HashSet<>();
    /** Simulates the spans that start at a frame (each resets it); made once per method. */
    private AnalyzerAdapter fromFrames;

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
        add(target, new Hint(Kind.FALL_THROUGH, target, null));
    }

    /** Whether {@link #copied} must be told about {@code insn}: a target or source announced here. */
    boolean involves(AbstractInsnNode insn) {
        return !targets.isEmpty() && (insn instanceof LabelNode label ? targets.containsKey(label) : sources.contains(insn));
    }

    /**
     * A region was copied ({@link MonitorBlockSplitter}): {@code clones} maps each of its instructions that
     * {@link #involves} to its copy. A target in the region gets a copy of its hint in the copy, from the copy of
     * its source.
     */
    void copied(Map<AbstractInsnNode, AbstractInsnNode> clones) {
        for (Map.Entry<AbstractInsnNode, AbstractInsnNode> e : clones.entrySet()) {
            Hint hint = e.getKey() instanceof LabelNode label ? targets.get(label) : null;
            if (hint == null || !(e.getValue() instanceof LabelNode copy)) {
                continue;
            }
            AbstractInsnNode source = hint.kind == Kind.FALL_THROUGH ? copy : clones.get(hint.source);
            if (source != null) { // else no frame there: the check after the derivation falls back
                add(copy, new Hint(hint.kind, source, hint.exception));
            }
        }
    }

    private void add(LabelNode target, Hint hint) {
        targets.put(target, hint);
        sources.add(hint.source);
    }

    /**
     * Inserts the announced frames into {@code method} and checks that the method has every frame it needs.
     *
     * @return null if it has, else why not (the method's frames must then be computed)
     */
    String insertFrames(MethodNode method, String owner) {
        try {
            for (LabelNode target : targets.keySet()) {
                if (!frame(target, method, owner)) {
                    return "no state for a frame the rewriting needs";
                }
            }
        } catch (RuntimeException e) { // AnalyzerAdapter on code it cannot follow
            return "derivation failed: " + e;
        }
        return checkFrames(method, new CompressedFrames());
    }

    /** Inserts {@code target}'s frame unless there already; false if its state is unknown. */
    private boolean frame(LabelNode target, MethodNode method, String owner) {
        if (!framed.add(target)) {
            return true;
        }
        Hint hint = targets.get(target);
        State at = stateBefore(hint.source, target, method, owner);
        if (at == null) {
            return false;
        }
        List<Object> stack = switch (hint.kind) {
            case AFTER_POP -> at.stack.isEmpty() ? null : at.stack.subList(0, at.stack.size() - 1);
            case HANDLER -> List.of(hint.exception);
            case FALL_THROUGH -> at.stack;
        };
        if (stack == null) {
            return false;
        }
        method.instructions.insert(target, new FrameNode(Opcodes.F_NEW, at.locals.size(), at.locals.toArray(), stack.size(),
                stack.toArray()));
        return true;
    }

    /**
     * The state just before {@code insn}: the instructions' effect on the types ({@link AnalyzerAdapter}) from the
     * last frame before it (or the method's start), a target's frame there inserted first. Only these short spans
     * are simulated, not the whole method. Null if unknown (or holding an uninitialized object).
     */
    private State stateBefore(AbstractInsnNode insn, LabelNode target, MethodNode method, String owner) {
        AbstractInsnNode from = insn.getPrevious();
        while (from != null && !(from instanceof FrameNode)) {
            if (from == target) {
                return null; // a source after its target: not a shape the passes make
            }
            if (from instanceof LabelNode label && targets.containsKey(label) && !framed.contains(label)) {
                if (!frame(label, method, owner)) {
                    return null;
                }
                from = label.getNext(); // its frame
            } else {
                from = from.getPrevious();
            }
        }
        AnalyzerAdapter types;
        if (from == null) { // the method's implicit first frame
            types = new AnalyzerAdapter(owner, method.access, method.name, method.desc, null);
        } else { // reset by the frame, the first node visited
            if (fromFrames == null) {
                fromFrames = new AnalyzerAdapter(owner, method.access, method.name, method.desc, null);
            }
            types = fromFrames;
        }
        for (AbstractInsnNode n = from == null ? method.instructions.getFirst() : from; n != insn; n = n.getNext()) {
            n.accept(types);
        }
        return state(types.locals, types.stack);
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
     * unconditional jump) has exactly one: null if so, else the first that does not. One walk: the labels that
     * have a frame are collected, the targets checked against them after; the frames, all expanded, are given to
     * {@code compressed} (if not null) on the way (on a problem the caller computes the frames anew).
     */
    static String checkFrames(MethodNode method, CompressedFrames compressed) {
        Set<LabelNode> withFrame = new HashSet<>();
        List<LabelNode> targets = new ArrayList<>();
        for (TryCatchBlockNode tcb : method.tryCatchBlocks) {
            targets.add(tcb.handler);
        }
        List<LabelNode> here = new ArrayList<>(); // the labels since the last instruction
        boolean afterJump = false;
        int frames = 0;
        int index = 0;
        for (AbstractInsnNode insn = method.instructions.getFirst(); insn != null; insn = insn.getNext(), index++) {
            if (insn instanceof LabelNode label) {
                here.add(label);
            } else if (insn instanceof FrameNode frame) {
                frames++;
                withFrame.addAll(here);
                if (compressed != null) {
                    compressed.next(frame);
                }
            } else if (!(insn instanceof LineNumberNode)) {
                if (frames > 1 || (afterJump && frames == 0)) {
                    return (frames == 0 ? "no frame" : frames + " frames") + " at instruction " + index + " of " + method.name;
                }
                if (insn instanceof JumpInsnNode j) {
                    targets.add(j.label);
                    afterJump = j.getOpcode() == Opcodes.GOTO || j.getOpcode() == Opcodes.JSR;
                } else if (insn instanceof TableSwitchInsnNode t) {
                    targets.add(t.dflt);
                    targets.addAll(t.labels);
                    afterJump = true;
                } else if (insn instanceof LookupSwitchInsnNode l) {
                    targets.add(l.dflt);
                    targets.addAll(l.labels);
                    afterJump = true;
                } else {
                    afterJump = endsBlock(insn.getOpcode());
                }
                frames = 0;
                if (!here.isEmpty()) {
                    here.clear();
                }
            }
        }
        for (LabelNode target : targets) {
            if (!withFrame.contains(target)) {
                return "no frame at a branch target or handler of " + method.name;
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
