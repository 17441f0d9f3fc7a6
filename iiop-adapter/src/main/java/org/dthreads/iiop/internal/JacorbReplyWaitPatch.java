package org.dthreads.iiop.internal;

import java.util.ArrayList;
import java.util.List;
import org.dthreads.internal.RateLimitedLog;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Load-time patch of {@code org.jacorb.orb.giop.ReplyPlaceholder} for {@link JacorbReplyWait} (chained from
 * {@link JacorbPatch}, only in {@code -Ddthreads.callbacks=original} mode):
 * <ul>
 *   <li>{@code getInputStream(boolean)} is renamed to {@code getInputStream$dthreads} (private, synthetic), its
 *       code unchanged but for its one {@code lock.wait(long)}, which becomes
 *       {@code JacorbReplyWait.await(lock, long)} (same stack: no new local, branch or frame);</li>
 *   <li>a method with the original name, access and descriptor returns
 *       {@code (MessageInputStream) JacorbReplyWait.getInputStream(this, b, MethodHandles.lookup())}.</li>
 * </ul>
 * and {@code org.jacorb.orb.ReplyReceiver$Timer.run()}'s wait on that {@code lock} tolerates the callbacks' wake-ups
 * ({@link #transformTimer}).
 *
 * <p>Shape guard ({@link #shapeProblem}): patched only if that method makes exactly one call of
 * {@code Object.wait(long)} and no other wait or notify, inside one {@code synchronized} block (a catch-all
 * handler covers the call, which releases the monitor when {@code CallbackOrbWait.CALLBACK_QUEUED} passes), with an
 * {@code InterruptedException} handler around it, and the class has the fields {@code lock} and {@code timeout}
 * (JacORB 3.8 and 3.9). Otherwise the class stays as it is, one line is logged, and the original-mode calls of
 * this JacORB go through helper threads as before ({@link JacorbCallbacks} looks for the renamed method).
 * Stateless.
 */
final class JacorbReplyWaitPatch {

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(JacorbPatch.class);

    static final String REPLY_PLACEHOLDER = "org/jacorb/orb/giop/ReplyPlaceholder";
    static final String METHOD = "getInputStream";
    static final String DESC = "(Z)Lorg/jacorb/orb/giop/MessageInputStream;";
    static final String LOCK_FIELD = "lock";
    static final String TIMEOUT_FIELD = "timeout";
    static final String READY_FIELD = "ready";
    /** JacORB's timer thread of a call with a CORBA Messaging timeout (not in non-blocking mode). */
    static final String TIMER = "org/jacorb/orb/ReplyReceiver$Timer";
    static final String AWAKENED_FIELD = "awakened";
    static final String OUTER_FIELD = "this$0";
    /** Built at run time so that the agent's shading never rewrites it. */
    static final String HOOK = String.join("/", "org", "dthreads", "iiop", "internal", "JacorbReplyWait");
    private static final String LOOKUP = RenamedReplyWait.LOOKUP;

    private JacorbReplyWaitPatch() {}

    /** The patched class, or null (left alone: patched already, or not of the expected shape; logged). */
    static byte[] transform(byte[] bytes) {
        return RenamedReplyWait.guardedPatch(bytes, LOG, "jacorb-reply-wait", REPLY_PLACEHOLDER, METHOD, "JacORB",
                JacorbReplyWaitPatch::shapeProblem, JacorbReplyWaitPatch::patch);
    }

    /** Why {@code bytes} cannot be patched, or null if the wait loop is as expected. */
    static String shapeProblem(byte[] bytes) {
        Shape shape = new Shape();
        new ClassReader(bytes).accept(shape, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return shape.problem();
    }

    /** Reads the fields and the wait loop of the class (ASM core API only: the agent ships no tree API). */
    private static final class Shape extends ClassVisitor {
        private boolean lock;
        private boolean timeout;
        private boolean method;
        private int monitors;
        private final List<String> waits = new ArrayList<>(); // name + descriptor + opcode of each wait/notify
        private int waitAt = -1; // instruction index of the first wait
        private final RenamedReplyWait.Handlers handlers = new RenamedReplyWait.Handlers();

        Shape() {
            super(Opcodes.ASM9);
        }

        @Override
        public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
            if ((access & Opcodes.ACC_STATIC) == 0) {
                lock |= name.equals(LOCK_FIELD) && descriptor.equals("Ljava/lang/Object;");
                timeout |= name.equals(TIMEOUT_FIELD) && descriptor.equals("I");
            }
            return null;
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exc) {
            if (!name.equals(METHOD) || !descriptor.equals(DESC)
                    || (access & (Opcodes.ACC_STATIC | Opcodes.ACC_ABSTRACT | Opcodes.ACC_SYNCHRONIZED)) != 0) {
                return null;
            }
            method = true;
            return new MethodVisitor(Opcodes.ASM9) {
                private int index;

                @Override
                public void visitTryCatchBlock(Label start, Label end, Label handler, String type) {
                    handlers.handler(start, end, type);
                }

                @Override
                public void visitLabel(Label label) {
                    handlers.label(label, index);
                }

                @Override
                public void visitInsn(int opcode) {
                    if (opcode == Opcodes.MONITORENTER) {
                        monitors++;
                    }
                    index++;
                }

                @Override
                public void visitMethodInsn(int opcode, String owner, String name, String desc, boolean itf) {
                    if (owner.equals("java/lang/Object") && (name.equals("wait") || name.startsWith("notify"))) {
                        waits.add(name + desc + opcode);
                        waitAt = waitAt < 0 ? index : waitAt;
                    }
                    index++;
                }

                @Override
                public void visitVarInsn(int opcode, int var) {
                    index++;
                }

                @Override
                public void visitFieldInsn(int opcode, String owner, String name, String desc) {
                    index++;
                }

                @Override
                public void visitJumpInsn(int opcode, Label label) {
                    index++;
                }
            };
        }

        String problem() {
            if (!lock || !timeout) {
                return "no instance fields lock and timeout";
            }
            if (!method) {
                return "no instance method " + METHOD + DESC + " with a body, not synchronized";
            }
            if (monitors != 1 || !waits.equals(List.of("wait(J)V" + Opcodes.INVOKEVIRTUAL))) {
                return monitors + " synchronized blocks, waits and notifies " + waits
                        + " (expected one block and one Object.wait(long))";
            }
            return handlers.coverWait(waitAt) ? null
                    : "the wait is not inside a synchronized block with an InterruptedException handler";
        }
    }

    /** Renames the method, redirects its wait and adds the wrapper. Precondition: {@link #shapeProblem} is null. */
    static byte[] patch(byte[] bytes) {
        return RenamedReplyWait.renameAndWrap(bytes, METHOD, DESC, renamed -> new MethodVisitor(Opcodes.ASM9, renamed) {
            @Override
            public void visitMethodInsn(int opcode, String owner, String method, String desc, boolean itf) {
                if (opcode == Opcodes.INVOKEVIRTUAL && owner.equals("java/lang/Object") && method.equals("wait")
                        && desc.equals("(J)V")) {
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOK, "await", "(Ljava/lang/Object;J)V", false);
                } else {
                    super.visitMethodInsn(opcode, owner, method, desc, itf);
                }
            }
        }, Opcodes.ILOAD, HOOK, "(Ljava/lang/Object;Z" + LOOKUP + ")Ljava/lang/Object;",
                "org/jacorb/orb/giop/MessageInputStream");
    }

    /**
     * The patched {@code ReplyReceiver$Timer}, or null (left alone: patched already, or not of the expected shape;
     * logged). JacORB's timer of a call with a CORBA Messaging timeout waits on the placeholder's {@code lock} and
     * takes any wake-up for its deadline; the wake-up of a queued callback ({@code lock.notifyAll()}) would end the
     * call with {@code TIMEOUT} at once. Its one {@code lock.wait(long)} in {@code run()} becomes
     * {@code JacorbReplyWait.timerWait(lock, long, this, MethodHandles.lookup())}, which waits again until the
     * time is up, the reply has come ({@code awakened}) or the placeholder is done ({@code ready}: a cancel or retry,
     * as before).
     */
    static byte[] transformTimer(byte[] bytes) {
        try {
            String problem = timerShapeProblem(bytes);
            if (problem == null || problem.isEmpty()) {
                return problem == null ? patchTimer(bytes) : null;
            }
            LOG.warn("jacorb-reply-timer-shape", "dthreads: " + TIMER.replace('/', '.') + ".run is not of the expected"
                    + " shape in this JacORB version (" + problem + "); in original mode a callback during a call with"
                    + " a CORBA Messaging timeout may end that call with TIMEOUT early");
            return null;
        } catch (RuntimeException e) {
            LOG.error("jacorb-reply-timer-failed", "dthreads: could not patch " + TIMER.replace('/', '.') + ": " + e);
            return null;
        }
    }

    /** Null if the timer can be patched, "" if it is patched already, else what is missing. */
    static String timerShapeProblem(byte[] bytes) {
        boolean[] fields = new boolean[2];
        List<String> waits = new ArrayList<>();
        new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
                if ((access & Opcodes.ACC_STATIC) == 0) {
                    fields[0] |= name.equals(AWAKENED_FIELD) && descriptor.equals("Z");
                    fields[1] |= name.equals(OUTER_FIELD) && descriptor.equals("Lorg/jacorb/orb/ReplyReceiver;");
                }
                return null;
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] e) {
                if (!name.equals("run") || !descriptor.equals("()V")) {
                    return null;
                }
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String method, String desc, boolean itf) {
                        if (owner.equals(HOOK)) {
                            waits.add("hook");
                        } else if (owner.equals("java/lang/Object") && method.equals("wait")) {
                            waits.add(method + desc + opcode);
                        }
                    }
                };
            }
        }, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        if (waits.contains("hook")) {
            return "";
        }
        if (!fields[0] || !fields[1]) {
            return "no instance fields " + AWAKENED_FIELD + " and " + OUTER_FIELD;
        }
        return waits.equals(List.of("wait(J)V" + Opcodes.INVOKEVIRTUAL)) ? null
                : "waits in run() " + waits + " (expected one Object.wait(long))";
    }

    /** Redirects the timer's wait. Precondition: {@link #timerShapeProblem} is null. */
    static byte[] patchTimer(byte[] bytes) {
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int acc, String name, String descriptor, String signature, String[] exc) {
                MethodVisitor mv = super.visitMethod(acc, name, descriptor, signature, exc);
                if (!name.equals("run") || !descriptor.equals("()V")) {
                    return mv;
                }
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String method, String desc, boolean itf) {
                        if (opcode == Opcodes.INVOKEVIRTUAL && owner.equals("java/lang/Object") && method.equals("wait")
                                && desc.equals("(J)V")) { // stack: lock, millis; no branch added, frames unchanged
                            super.visitVarInsn(Opcodes.ALOAD, 0);
                            super.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/invoke/MethodHandles", "lookup",
                                    "()" + LOOKUP, false);
                            super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOK, "timerWait",
                                    "(Ljava/lang/Object;JLjava/lang/Object;" + LOOKUP + ")V", false);
                        } else {
                            super.visitMethodInsn(opcode, owner, method, desc, itf);
                        }
                    }
                };
            }
        }, 0);
        return writer.toByteArray();
    }

    /** Whether the JacORB that {@code loader} sees has the patched reply wait. */
    static boolean patched(ClassLoader loader) {
        try {
            for (java.lang.reflect.Method m : Class.forName(REPLY_PLACEHOLDER.replace('/', '.'), false, loader)
                    .getDeclaredMethods()) {
                if (m.getName().equals(METHOD + JacorbPatch.SUFFIX)) {
                    return true;
                }
            }
            return false;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
