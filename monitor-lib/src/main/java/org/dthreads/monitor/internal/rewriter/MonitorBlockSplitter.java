package org.dthreads.monitor.internal.rewriter;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.FrameNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LocalVariableNode;
import org.objectweb.asm.tree.LookupSwitchInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TableSwitchInsnNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * Gives every {@code synchronized} block two copies, chosen once at its entry:
 * <pre>
 *   [lock on stack, also in L] invokestatic Monitors.isEmulated; ifne EMULATED
 *   aload L; monitorenter; ...block...; monitorexit ...      (native: the JVM's monitor, as before)
 *   EMULATED: aload L; invokestatic Monitors.enter; ...copy...; invokestatic Monitors.exit ...
 * </pre>
 * Each copy keeps {@code monitorenter}/{@code monitorexit} (or their emulated calls) balanced and
 * block-structured, which the JIT requires; a conditional {@code monitorenter} would leave the
 * method interpreted. Each copy loads the lock from L after the branch: HotSpot's monitor-matching
 * analysis rejected the earlier shape, where a {@code dup} of the lock crossed the branch and
 * {@code monitorenter} took it from the stack ({@code -Xlog:monitormismatch}: "improper monitor
 * pair"; C1 and C2 then refused the method, so every rewritten method with a monitor ran
 * interpreted). {@code RewrittenCodeCompilesTest} checks this in a JVM of its own.
 *
 * <p>A block is recognized in the shape javac (and {@link SynchronizedMethodLowering}) emits:
 * {@code dup; astore L; monitorenter} (or {@code aload L; monitorenter}), an "any" handler whose
 * range starts right after the {@code monitorenter}, and that handler ending in {@code athrow}.
 * The region from the {@code monitorenter} to that {@code athrow} is copied; labels inside it are
 * renamed in the copy, labels outside are shared, so every exit of the block ({@code break},
 * {@code return}, exceptions to outer handlers) leaves both copies the same way. The copy is
 * placed right after the region's {@code athrow}, inside every enclosing handler range. Nested
 * blocks are then split in both copies. Anything else (code from other compilers, jumps into a
 * block) throws {@link CannotRewriteException}: the class stays untouched rather than half-done.
 *
 * <p>The emulated copy's release handler does not cover itself (javac's does): an exit that fails
 * there propagates instead of being retried for ever.
 *
 * <p>Frames are stripped for the class writer to recompute them, or, with {@link FrameHints}, kept: the copy
 * carries copies of the region's frames (it has the region's states), and its entry's frame is derived from the
 * state at the dispatch.
 */
final class MonitorBlockSplitter {

    static final String MONITORS = "org/dthreads/monitor/Monitors";

    private MonitorBlockSplitter() {}

    /** @return the number of blocks in the method as it came (copies not counted) */
    static int split(MethodNode method) {
        return split(method, null);
    }

    /**
     * As {@link #split(MethodNode)}; with {@code hints} the method's frames are kept (copied with the code) and each
     * copy's entry is announced there, else they are stripped for the writer to recompute.
     */
    static int split(MethodNode method, FrameHints hints) {
        if (hints == null) {
            stripFrames(method);
        }
        int original = 0;
        for (AbstractInsnNode insn = method.instructions.getFirst(); insn != null; insn = insn.getNext()) {
            if (insn.getOpcode() == Opcodes.MONITORENTER) {
                original++;
            }
        }
        Set<AbstractInsnNode> done = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        int blocks = 0;
        // every block not split yet lies after the last one split: its nested blocks, and the copy, placed after it
        for (AbstractInsnNode enter = nextEnter(method, method.instructions.getFirst(), done); enter != null;
                enter = nextEnter(method, enter.getNext(), done)) {
            splitOne(method, enter, done, hints);
            if (++blocks > 4096) {
                throw new CannotRewriteException("too many synchronized blocks (after splitting nested ones) in " + method.name);
            }
        }
        return original;
    }

    private static AbstractInsnNode nextEnter(MethodNode method, AbstractInsnNode from, Set<AbstractInsnNode> done) {
        for (AbstractInsnNode insn = from; insn != null; insn = insn.getNext()) {
            if (insn.getOpcode() == Opcodes.MONITORENTER && !done.contains(insn)) {
                return insn;
            }
        }
        return null;
    }

    private static void splitOne(MethodNode method, AbstractInsnNode enter, Set<AbstractInsnNode> done, FrameHints hints) {
        InsnList code = method.instructions;
        int lock = lockSlot(enter, method);
        TryCatchBlockNode any = anyHandlerStartingAfter(method, enter, lock);
        AbstractInsnNode end = nextReal(any.handler);
        while (end != null && end.getOpcode() != Opcodes.ATHROW) {
            end = end.getNext();
        }
        if (end == null) {
            throw new CannotRewriteException("synchronized block in " + method.name + " whose handler does not rethrow");
        }
        int from = code.indexOf(enter);
        int to = code.indexOf(end);
        checkNoJumpsInto(method, from, to);

        // Clone the region [enter+1, end] with labels inside it renamed; a label outside maps to itself.
        Map<LabelNode, LabelNode> labels = new HashMap<>() {
            @Override
            public LabelNode get(Object label) {
                LabelNode renamed = super.get(label);
                return renamed != null ? renamed : (LabelNode) label;
            }
        };
        for (AbstractInsnNode insn = enter.getNext(); insn != end.getNext(); insn = insn.getNext()) {
            if (insn instanceof LabelNode label) {
                labels.put(label, new LabelNode());
            }
        }
        LabelNode copyEnd = new LabelNode();
        InsnList copy = new InsnList();
        LabelNode emulated = new LabelNode();
        copy.add(emulated);
        copy.add(new VarInsnNode(Opcodes.ALOAD, lock));
        copy.add(monitorsCall("enter", "(Ljava/lang/Object;)V"));
        Map<AbstractInsnNode, AbstractInsnNode> clones = hints == null ? null : new IdentityHashMap<>();
        for (AbstractInsnNode insn = enter.getNext(); insn != end.getNext(); insn = insn.getNext()) {
            AbstractInsnNode cloned = insn.clone(labels);
            if (cloned.getOpcode() == Opcodes.MONITOREXIT && loadsSlot(insn.getPrevious(), lock)) {
                cloned = monitorsCall("exit", "(Ljava/lang/Object;)V");
            }
            copy.add(cloned);
            if (clones != null && hints.involves(insn)) {
                clones.put(insn, cloned);
            }
        }
        copy.add(copyEnd);
        if (hints != null) {
            hints.copied(clones); // a reflective guard's targets inside the block
        }

        if (method.localVariables != null) {
            List<LocalVariableNode> locals = new ArrayList<>();
            for (LocalVariableNode lv : method.localVariables) {
                if (inside(code, lv.start, from, to) && inside(code, lv.end, from, to)) {
                    locals.add(new LocalVariableNode(lv.name, lv.desc, lv.signature, labels.get(lv.start),
                            labels.get(lv.end), lv.index));
                }
            }
            method.localVariables.addAll(locals);
        }

        InsnList dispatch = new InsnList();
        MethodInsnNode isEmulated = monitorsCall("isEmulated", "(Ljava/lang/Object;)Z");
        dispatch.add(isEmulated);
        if (hints != null) { // the copy starts with the state of the native one, the lock popped by the test
            hints.afterPop(emulated, isEmulated);
        }
        dispatch.add(new JumpInsnNode(Opcodes.IFNE, emulated));
        dispatch.add(new VarInsnNode(Opcodes.ALOAD, lock));
        code.insertBefore(enter, dispatch);
        code.insert(end, copy);
        method.tryCatchBlocks = exceptionTableWithCopy(method, code.indexOf(enter), code.indexOf(end), any.handler, labels, emulated,
                copyEnd);
        done.add(enter);
    }

    /**
     * The exception table once the copy is placed right after the region: every entry that covers
     * part of the region gets an entry covering the same part of the copy, right after it (so the
     * order of entries, which decides between overlapping handlers, is the same for both copies).
     * <ul>
     *   <li>handler inside the region: the range must be inside too (or end right after it); cloned
     *       with the handler renamed;</li>
     *   <li>handler outside, range covering the whole region: the copy, inserted inside the range,
     *       is covered already;</li>
     *   <li>handler outside, range starting before and ending inside (javac ends an outer range
     *       before the release code of a {@code return} in an inner block): cloned from the copy's
     *       start;</li>
     *   <li>handler outside, range starting and ending inside (an outer range cut around the release
     *       code of a {@code return}, on both sides): cloned with both ends renamed;</li>
     *   <li>handler outside, range starting inside and ending after the region: the original is cut
     *       around the copy, and the copy's part cloned.</li>
     * </ul>
     */
    private static List<TryCatchBlockNode> exceptionTableWithCopy(MethodNode method, int from, int to,
            LabelNode releaseHandler, Map<LabelNode, LabelNode> labels, LabelNode copyStart, LabelNode copyEnd) {
        InsnList code = method.instructions;
        List<TryCatchBlockNode> table = new ArrayList<>();
        for (TryCatchBlockNode tcb : method.tryCatchBlocks) {
            int start = code.indexOf(tcb.start);
            int end = code.indexOf(tcb.end);
            boolean handlerInside = inside(code, tcb.handler, from, to);
            boolean coversEnter = start <= from;
            boolean coversAthrow = end > to;
            boolean overlaps = start <= to && end > from;
            if (handlerInside) {
                if (coversEnter || (coversAthrow && !endsRightAfter(code, tcb.end, to))) {
                    throw new CannotRewriteException("an exception range crosses the edge of a synchronized block in "
                            + method.name);
                }
                table.add(tcb);
                int releaseAt = code.indexOf(releaseHandler);
                if (tcb.handler == releaseHandler && start >= releaseAt) {
                    // javac's release handler covers its own monitorexit and re-runs it on any exception.
                    // The emulated copy drops that self-cover: Monitors.exit throws only if the class does
                    // not own the monitor (its binding changed inside the block), and re-running it would
                    // spin for ever; the exception propagates instead.
                    continue;
                }
                LabelNode copyEndLabel = coversAthrow ? copyEnd : labels.get(tcb.end);
                if (tcb.handler == releaseHandler && end > releaseAt) {
                    // One range may cover a finally handler and the release handler both (javac merges
                    // them: [finally handler, release handler's exit] -> release handler). Its copy stops
                    // where the release handler starts, for the same reason; C1 also refuses a handler that
                    // covers itself this way ("exception handler covers itself").
                    copyEndLabel = labels.get(releaseHandler);
                }
                table.add(copyOf(tcb, labels.get(tcb.start), copyEndLabel, labels.get(tcb.handler)));
            } else if (!overlaps || (coversEnter && coversAthrow)) {
                table.add(tcb);
            } else if (coversEnter) {
                table.add(tcb);
                table.add(copyOf(tcb, copyStart, labels.get(tcb.end), tcb.handler));
            } else if (!coversAthrow) {
                // Starts and ends inside (javac cuts an outer try's range around the release code of a
                // return from the block, e.g. try-with-resources around a block that returns).
                table.add(tcb);
                table.add(copyOf(tcb, labels.get(tcb.start), labels.get(tcb.end), tcb.handler));
            } else {
                table.add(copyOf(tcb, tcb.start, copyStart, tcb.handler));
                if (hasCodeBetween(copyEnd, tcb.end)) {
                    table.add(copyOf(tcb, copyEnd, tcb.end, tcb.handler));
                }
                table.add(copyOf(tcb, labels.get(tcb.start), copyEnd, tcb.handler));
            }
        }
        return table;
    }

    private static TryCatchBlockNode copyOf(TryCatchBlockNode tcb, LabelNode start, LabelNode end, LabelNode handler) {
        TryCatchBlockNode c = new TryCatchBlockNode(start, end, handler, tcb.type);
        c.visibleTypeAnnotations = tcb.visibleTypeAnnotations;
        c.invisibleTypeAnnotations = tcb.invisibleTypeAnnotations;
        return c;
    }

    /** Whether a real instruction lies between two labels of the list (after the copy is inserted). */
    private static boolean hasCodeBetween(LabelNode from, LabelNode to) {
        for (AbstractInsnNode n = from; n != null && n != to; n = n.getNext()) {
            if (n.getOpcode() >= 0) {
                return true;
            }
        }
        return false;
    }

    private static int lockSlot(AbstractInsnNode enter, MethodNode method) {
        AbstractInsnNode prev = previousReal(enter);
        if (alreadyRewritten(prev)) {
            // only a class without the marker (a synchronized native method) can come back: its blocks stay as split
            throw new CannotRewriteException("synchronized blocks in " + method.name + " are split already (rewritten before)");
        }
        if (prev instanceof VarInsnNode store && store.getOpcode() == Opcodes.ASTORE
                && previousReal(prev) != null && previousReal(prev).getOpcode() == Opcodes.DUP) {
            return store.var;
        }
        if (prev instanceof VarInsnNode load && load.getOpcode() == Opcodes.ALOAD) {
            return load.var;
        }
        throw new CannotRewriteException("monitorenter in " + method.name + " not in javac's shape (dup; astore; monitorenter)");
    }

    /**
     * The block's release handler: an "any" handler whose range starts right after the
     * {@code monitorenter} and whose code is {@code astore T; aload L; monitorexit} (or, from ecj,
     * {@code aload L; monitorexit} with the exception left on the stack). Checking the code
     * matters: a {@code try/finally} (or try-with-resources) that opens the block has an "any" handler
     * starting at the same place, and it may come first in the table.
     */
    private static TryCatchBlockNode anyHandlerStartingAfter(MethodNode method, AbstractInsnNode enter, int lock) {
        for (TryCatchBlockNode tcb : method.tryCatchBlocks) {
            if (tcb.type == null && nextReal(tcb.start) == nextReal(enter.getNext()) && releases(tcb.handler, lock)) {
                return tcb;
            }
        }
        throw new CannotRewriteException("synchronized block in " + method.name + " without javac's release handler");
    }

    private static boolean releases(LabelNode handler, int lock) {
        AbstractInsnNode exit = afterLockLoad(handler, lock);
        return exit != null && exit.getOpcode() == Opcodes.MONITOREXIT;
    }

    /**
     * The instruction that follows a release handler's {@code [astore T;] aload L} (javac stores the exception;
     * ecj may keep it on the stack: {@code aload L; monitorexit; athrow}), or null if the handler does not start
     * by loading {@code lock}.
     */
    static AbstractInsnNode afterLockLoad(LabelNode handler, int lock) {
        AbstractInsnNode first = nextReal(handler);
        AbstractInsnNode load = first instanceof VarInsnNode s && s.getOpcode() == Opcodes.ASTORE
                ? nextReal(first.getNext()) : first;
        if (!(load instanceof VarInsnNode l) || l.getOpcode() != Opcodes.ALOAD || l.var != lock) {
            return null;
        }
        return nextReal(load.getNext());
    }

    private static void checkNoJumpsInto(MethodNode method, int from, int to) {
        InsnList code = method.instructions;
        int at = 0; // the instruction's index, counted rather than looked up
        for (AbstractInsnNode insn = code.getFirst(); insn != null; insn = insn.getNext(), at++) {
            if (at >= from && at <= to) {
                continue;
            }
            if (insn instanceof JumpInsnNode j) {
                checkNotInside(method, j.label, from, to);
            } else if (insn instanceof TableSwitchInsnNode t) {
                checkNotInside(method, t.dflt, from, to);
                for (LabelNode label : t.labels) { // a loop, not a lambda spun while classes load (issue 16)
                    checkNotInside(method, label, from, to);
                }
            } else if (insn instanceof LookupSwitchInsnNode l) {
                checkNotInside(method, l.dflt, from, to);
                for (LabelNode label : l.labels) { // a loop, not a lambda spun while classes load (issue 16)
                    checkNotInside(method, label, from, to);
                }
            }
        }
    }

    private static void checkNotInside(MethodNode method, LabelNode target, int from, int to) {
        if (inside(method.instructions, target, from, to)) {
            throw new CannotRewriteException("a jump into a synchronized block in " + method.name);
        }
    }

    /** Whether {@code label} follows the region's last instruction with no instruction between. */
    private static boolean endsRightAfter(InsnList code, LabelNode label, int to) {
        int at = code.indexOf(label);
        if (at <= to) {
            return false;
        }
        for (AbstractInsnNode n = code.get(to).getNext(); n != null && n != label; n = n.getNext()) {
            if (n.getOpcode() >= 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean inside(InsnList code, AbstractInsnNode node, int from, int to) {
        int at = code.indexOf(node);
        return at > from && at <= to;
    }

    /**
     * Whether the instructions before a {@code monitorenter} are this rewriter's own: the native copy's
     * {@code isEmulated; ifne; aload L}, or the lost-exit record's {@code getstatic LostExits.LOCK; dup; astore}.
     */
    private static boolean alreadyRewritten(AbstractInsnNode beforeEnter) {
        AbstractInsnNode p = beforeEnter;
        if (p instanceof VarInsnNode && (p = previousReal(p)) != null) {
            if (p.getOpcode() == Opcodes.IFNE && previousReal(p) instanceof MethodInsnNode call
                    && call.owner.equals(MONITORS) && call.name.equals("isEmulated")) {
                return true;
            }
            if (p.getOpcode() == Opcodes.DUP && previousReal(p) instanceof FieldInsnNode field
                    && field.owner.equals(ExitOverflowGuard.LOST_EXITS)) {
                return true;
            }
        }
        return false;
    }

    private static boolean loadsSlot(AbstractInsnNode insn, int slot) {
        AbstractInsnNode prev = insn;
        while (prev != null && prev.getOpcode() < 0) {
            prev = prev.getPrevious();
        }
        return prev instanceof VarInsnNode v && v.getOpcode() == Opcodes.ALOAD && v.var == slot;
    }

    static AbstractInsnNode nextReal(AbstractInsnNode insn) {
        AbstractInsnNode n = insn;
        while (n != null && n.getOpcode() < 0) {
            n = n.getNext();
        }
        return n;
    }

    static AbstractInsnNode previousReal(AbstractInsnNode insn) {
        AbstractInsnNode p = insn.getPrevious();
        while (p != null && p.getOpcode() < 0) {
            p = p.getPrevious();
        }
        return p;
    }

    private static MethodInsnNode monitorsCall(String name, String descriptor) {
        return new MethodInsnNode(Opcodes.INVOKESTATIC, MONITORS, name, descriptor, false);
    }

    private static void stripFrames(MethodNode method) {
        for (AbstractInsnNode insn : method.instructions.toArray()) {
            if (insn instanceof FrameNode) {
                method.instructions.remove(insn);
            }
        }
    }
}
