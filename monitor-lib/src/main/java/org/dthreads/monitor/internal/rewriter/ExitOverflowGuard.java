package org.dthreads.monitor.internal.rewriter;

import java.util.ArrayList;
import java.util.List;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.FrameNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.IntInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * Records, without a call, an emulated exit whose own call overflowed the stack. Runs after
 * {@link MonitorBlockSplitter}, on every {@code aload L; invokestatic Monitors.exit} it emitted.
 *
 * <h2>Why</h2>
 * {@code Monitors.exit} catches every error raised inside it and records the level as a lost exit
 * ({@code LostExits}). What it cannot catch is a {@link StackOverflowError} raised by the call itself: the
 * callee's stack bang fails before its first instruction. Near the end of the stack that happens (a deep
 * recursion through synchronized code), and the level stays held for ever. The JVM's {@code monitorexit}
 * is not a call and never fails that way.
 *
 * <h2>What is emitted</h2>
 * For each exit site k (the call only is covered, by a {@code StackOverflowError} entry put first in the
 * exception table, so it wins over every other handler of the site):
 * <pre>
 *   H_k:   getstatic LostExits.LOCK; dup; astore M; monitorenter        (the JVM's monitor: no call)
 *   S:     OVERFLOWED[overflowedExits &amp; MASK] = L; overflowedExits++; pendingRepairs = true
 *          aload M; monitorexit
 *   E:     athrow                       the overflow goes on, to the handlers the call had
 *   C:     astore T; aload M; monitorexit; aload T; athrow                  [S,E) and [C,C_end) -&gt; C, any
 * </pre>
 * The site's code from {@code H_k} on is covered by copies of the entries that covered the call, in their
 * order and after {@code C}'s, so the overflow reaches the same {@code catch} blocks as before, except the
 * release handler of the block whose exit this is: the level is recorded, so running that block's exit
 * again would release it twice. {@code C} is javac's shape around a {@code monitorexit}: HotSpot compiles
 * a method only if every instruction that may throw while it holds a JVM monitor has an "any" handler;
 * for the same reason the copies cover all of the site's code, not only its rethrow (an exit of an
 * emulated block nested in a native one runs with the JVM monitor of the native one held).
 *
 * <p>The record is paid later by any thread ({@code LostExits.settleQuietly}): the next monitor operation,
 * or within the entrants' re-check period a thread blocked on that monitor. A site whose call has handlers
 * besides its block's release handler gets its own copy (42 bytes of cold code): the rethrow must keep that
 * site's locals for its handlers' verifier. The sites with none (every exit of a synchronized method, and of
 * a block outside any {@code try}) share one copy per lock local, whose frame holds only the lock (as an
 * {@code Object}) and the overflow: not in a constructor, where an uninitialized {@code this} would not merge
 * into it. Sharing matters to the JIT: a synchronized method's copies are inlined by size, and per-site copies
 * made a small one 12 times its size (Rhino's {@code Slot.setAttributes}: 11 bytes, 139 rewritten, 97 shared;
 * see {@code docs/benchmarks.md}, "The rewritten code's shape under the JIT").
 *
 * <p>The handler makes no call, but its first run resolves {@code LostExits} through the class's loader;
 * the agent resolves it (and {@code StackOverflowError}) in each loader before the first rewritten class
 * runs (see {@code MonitorTransformer}), so that resolution is a dictionary lookup, not a
 * {@code loadClass} call.
 */
final class ExitOverflowGuard {

    static final String LOST_EXITS = "org/dthreads/monitor/internal/LostExits";
    private static final String OVERFLOW = "java/lang/StackOverflowError";

    private ExitOverflowGuard() {}

    /** Guards the method's emulated exits; returns how many. */
    static int guard(MethodNode method) {
        return guard(method, MonitorBlockSplitter.MONITORS);
    }

    /** As {@link #guard(MethodNode)}, for exits called on {@code owner} (tests use a stand-in). */
    static int guard(MethodNode method, String owner) {
        return guard(method, owner, null);
    }

    /** As {@link #guard(MethodNode, String)}, announcing the handlers' frames to {@code hints} if not null. */
    static int guard(MethodNode method, String owner, FrameHints hints) {
        List<MethodInsnNode> calls = new ArrayList<>();
        List<Integer> locks = new ArrayList<>();
        for (AbstractInsnNode insn = method.instructions.getFirst(); insn != null; insn = insn.getNext()) {
            if (insn instanceof MethodInsnNode call && call.getOpcode() == Opcodes.INVOKESTATIC
                    && call.owner.equals(owner) && call.name.equals("exit")
                    && call.desc.equals("(Ljava/lang/Object;)V")
                    && MonitorBlockSplitter.previousReal(call) instanceof VarInsnNode load && load.getOpcode() == Opcodes.ALOAD) {
                calls.add(call);
                locks.add(load.var);
            }
        }
        if (calls.isEmpty()) {
            return 0;
        }
        int monitorLocal = method.maxLocals;
        int thrownLocal = method.maxLocals + 1;
        method.maxLocals += 2;
        List<TryCatchBlockNode> original = method.tryCatchBlocks;
        List<TryCatchBlockNode> first = new ArrayList<>();
        List<TryCatchBlockNode> last = new ArrayList<>();
        InsnList code = method.instructions;
        // Every site's covering entries first, while the code is unchanged: an insertion would make indexOf
        // renumber the whole method for each later site.
        List<List<TryCatchBlockNode>> coverings = new ArrayList<>();
        for (int k = 0; k < calls.size(); k++) {
            int at = code.indexOf(calls.get(k));
            List<TryCatchBlockNode> covering = new ArrayList<>();
            for (TryCatchBlockNode tcb : original) {
                if (code.indexOf(tcb.start) <= at && code.indexOf(tcb.end) > at
                        && !releasesSameLock(tcb, locks.get(k), owner)) {
                    covering.add(tcb);
                }
            }
            coverings.add(covering);
        }
        // Sites with no handler to reach (every exit of a synchronized method, of a block not inside a try) share
        // one record per lock local: its frame knows only the lock, which every such site has in the same local.
        java.util.Map<Integer, LabelNode> shared = new java.util.HashMap<>();
        boolean mayShare = !method.name.equals("<init>"); // an uninitialized this would not merge into that frame
        for (int k = 0; k < calls.size(); k++) {
            MethodInsnNode call = calls.get(k);
            int lock = locks.get(k);
            List<TryCatchBlockNode> covering = coverings.get(k);
            LabelNode before = new LabelNode();
            LabelNode after = new LabelNode();
            code.insertBefore(call, before);
            code.insert(call, after); // before any label that follows: ranges that covered the call still do
            boolean share = mayShare && covering.isEmpty();
            LabelNode existing = share ? shared.get(lock) : null;
            if (existing != null) {
                first.add(new TryCatchBlockNode(before, after, existing, OVERFLOW));
                continue;
            }
            LabelNode handler = new LabelNode();
            first.add(new TryCatchBlockNode(before, after, handler, OVERFLOW));
            LabelNode siteEnd = new LabelNode();
            FrameNode handlerFrame = null;
            if (share) {
                shared.put(lock, handler);
                if (hints != null) { // only the lock known (as an Object: all the record needs), the overflow on the stack
                    Object[] locals = new Object[lock + 1];
                    java.util.Arrays.fill(locals, Opcodes.TOP);
                    locals[lock] = "java/lang/Object";
                    handlerFrame = new FrameNode(Opcodes.F_NEW, locals.length, locals, 1, new Object[] {OVERFLOW});
                }
            } else if (hints != null) { // the call's locals, the overflow on the stack
                hints.handler(handler, call, OVERFLOW);
            }
            appendRecord(code, last, handler, handlerFrame, lock, monitorLocal, thrownLocal, hints);
            code.add(siteEnd);
            // after the record's own handlers: the whole site code, not only its rethrow, keeps the call's
            // handlers, so that a JVM monitor held around the call (an enclosing native block) stays paired
            for (TryCatchBlockNode tcb : covering) {
                last.add(new TryCatchBlockNode(handler, siteEnd, tcb.handler, tcb.type));
            }
        }
        List<TryCatchBlockNode> table = new ArrayList<>(first);
        table.addAll(original);
        table.addAll(last);
        method.tryCatchBlocks = table;
        return calls.size();
    }

    private static void appendRecord(InsnList code, List<TryCatchBlockNode> table, LabelNode handler, FrameNode handlerFrame, int lock,
            int monitorLocal, int thrownLocal, FrameHints hints) {
        LabelNode rethrow = new LabelNode();
        LabelNode locked = new LabelNode();
        LabelNode release = new LabelNode();
        LabelNode releaseEnd = new LabelNode();
        code.add(handler);
        if (handlerFrame != null) {
            code.add(handlerFrame);
        }
        code.add(new FieldInsnNode(Opcodes.GETSTATIC, LOST_EXITS, "LOCK", "Ljava/lang/Object;"));
        code.add(new InsnNode(Opcodes.DUP));
        code.add(new VarInsnNode(Opcodes.ASTORE, monitorLocal));
        code.add(new InsnNode(Opcodes.MONITORENTER));
        code.add(locked);
        // OVERFLOWED[overflowedExits & MASK] = lock
        FieldInsnNode overflowed = new FieldInsnNode(Opcodes.GETSTATIC, LOST_EXITS, "OVERFLOWED", "[Ljava/lang/Object;");
        code.add(overflowed);
        if (hints != null) { // the handler's locals and M, held from here
            hints.handler(release, overflowed, "java/lang/Throwable");
        }
        code.add(new FieldInsnNode(Opcodes.GETSTATIC, LOST_EXITS, "overflowedExits", "I"));
        code.add(new IntInsnNode(Opcodes.BIPUSH, OVERFLOWED_MASK));
        code.add(new InsnNode(Opcodes.IAND));
        code.add(new VarInsnNode(Opcodes.ALOAD, lock));
        code.add(new InsnNode(Opcodes.AASTORE));
        // overflowedExits++
        code.add(new FieldInsnNode(Opcodes.GETSTATIC, LOST_EXITS, "overflowedExits", "I"));
        code.add(new InsnNode(Opcodes.ICONST_1));
        code.add(new InsnNode(Opcodes.IADD));
        code.add(new FieldInsnNode(Opcodes.PUTSTATIC, LOST_EXITS, "overflowedExits", "I"));
        // pendingRepairs = true
        code.add(new InsnNode(Opcodes.ICONST_1));
        code.add(new FieldInsnNode(Opcodes.PUTSTATIC, LOST_EXITS, "pendingRepairs", "Z"));
        code.add(new VarInsnNode(Opcodes.ALOAD, monitorLocal));
        code.add(new InsnNode(Opcodes.MONITOREXIT));
        code.add(rethrow);
        code.add(new InsnNode(Opcodes.ATHROW));
        code.add(release);
        code.add(new VarInsnNode(Opcodes.ASTORE, thrownLocal));
        code.add(new VarInsnNode(Opcodes.ALOAD, monitorLocal));
        code.add(new InsnNode(Opcodes.MONITOREXIT));
        code.add(releaseEnd);
        code.add(new VarInsnNode(Opcodes.ALOAD, thrownLocal));
        code.add(new InsnNode(Opcodes.ATHROW));
        table.add(new TryCatchBlockNode(locked, rethrow, release, null));
        table.add(new TryCatchBlockNode(release, releaseEnd, release, null));
    }

    /**
     * Makes {@code loader} an initiating loader of the classes the handler names, so that resolving them from a
     * rewritten class of that loader is a dictionary lookup (never a {@code loadClass} call at the end of a
     * stack). Returns false if the loader cannot see them (then it cannot run rewritten code either).
     */
    static boolean prepare(ClassLoader loader) {
        for (String name : new String[] {LOST_EXITS.replace('/', '.'), OVERFLOW.replace('/', '.')}) {
            try {
                Class.forName(name, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }
        return true;
    }

    /** {@code LostExits.OVERFLOWED.length - 1}; the length is a power of two. */
    static final int OVERFLOWED_MASK = 63;

    /**
     * Whether the entry is the release handler of the block whose lock is in {@code lock}:
     * "any", and its code {@code [astore T;] aload L; invokestatic exit}.
     */
    private static boolean releasesSameLock(TryCatchBlockNode tcb, int lock, String owner) {
        return tcb.type == null && MonitorBlockSplitter.afterLockLoad(tcb.handler, lock) instanceof MethodInsnNode m
                && m.owner.equals(owner) && m.name.equals("exit");
    }
}
