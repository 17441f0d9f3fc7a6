package org.dthreads.iiop.internal;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;
import org.dthreads.internal.RateLimitedLog;
import org.dthreads.monitor.internal.callbacks.CallbackMode;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Load-time patch of the GlassFish ORB's {@code com.sun.corba.ee.impl.transport.ResponseWaitingRoomImpl} for
 * {@link GlassFishReplyWait} (issue 18, only in {@code -Ddthreads.callbacks=original} mode):
 * <ul>
 *   <li>{@code waitForResponse(MessageMediator)} is renamed to {@code waitForResponse$dthreads} (private,
 *       synthetic), its code unchanged but for its one {@code desc.condition.awaitNanos(nanos)}: the
 *       {@code getfield condition} is dropped and the call becomes
 *       {@code GlassFishReplyWait.awaitNanos(desc, nanos, MethodHandles.lookup())} (the hook reads the call
 *       descriptor's {@code lock} and {@code condition}; straight-line code, no new local, branch or frame);</li>
 *   <li>a method with the original name, access and descriptor returns
 *       {@code (CDRInputObject) GlassFishReplyWait.waitForResponse(this, mediator, MethodHandles.lookup())}.</li>
 * </ul>
 *
 * <p>Shape guard ({@link #shapeProblem}): patched only if that method calls {@code Condition.awaitNanos(long)} exactly
 * once and no other await or signal, right after {@code getfield condition:Condition} of its call descriptor and one
 * {@code lload} (no frame between: nothing jumps in), reads the descriptor's {@code lock:ReentrantLock}, and the call
 * is covered by a catch-all handler (the {@code finally} that unlocks, which {@code CALLBACK_QUEUED} passes through)
 * and an {@code InterruptedException} handler (GlassFish 4.2.x). Otherwise the class stays as it is, one line is
 * logged, and original-mode calls over this ORB go through helper threads as before ({@link #patched}). Stateless.
 */
final class GlassFishReplyWaitPatch implements ClassFileTransformer {

    /** Its own logger: the agent's loader, which loads this class, sees no ORB class (DThreadsOrbInitializer's). */
    private static final RateLimitedLog LOG = RateLimitedLog.forClass(GlassFishReplyWaitPatch.class);

    static final String ROOM = "com/sun/corba/ee/impl/transport/ResponseWaitingRoomImpl";
    static final String DESC_CLASS = ROOM + "$OutCallDesc";
    static final String METHOD = "waitForResponse";
    static final String DESC = "(Lcom/sun/corba/ee/spi/protocol/MessageMediator;)Lcom/sun/corba/ee/impl/encoding/CDRInputObject;";
    static final String LOCK_FIELD = "lock";
    static final String CONDITION_FIELD = "condition";
    private static final String CONDITION = "java/util/concurrent/locks/Condition";
    /** Built at run time so that the agent's shading never rewrites it. */
    static final String HOOK = String.join("/", "org", "dthreads", "iiop", "internal", "GlassFishReplyWait");
    private static final String LOOKUP = RenamedReplyWait.LOOKUP;

    @Override
    public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
            ProtectionDomain domain, byte[] bytes) {
        if (!ROOM.equals(className) || redefined != null || bytes == null || !CallbackMode.ORIGINAL) {
            return null;
        }
        String resource = HOOK + ".class";
        if (loader == null ? ClassLoader.getSystemResource(resource) == null : loader.getResource(resource) == null) {
            return null; // the ORB is loaded where the adapter is not visible: its fast path is off anyway
        }
        return transform(bytes);
    }

    /** The patched class, or null (left alone: patched already, or not of the expected shape; logged). */
    static byte[] transform(byte[] bytes) {
        return RenamedReplyWait.guardedPatch(bytes, LOG, "glassfish-reply-wait", ROOM, METHOD, "GlassFish ORB",
                GlassFishReplyWaitPatch::shapeProblem, GlassFishReplyWaitPatch::patch);
    }

    /** Why {@code bytes} cannot be patched, or null if the wait loop is as expected. */
    static String shapeProblem(byte[] bytes) {
        Shape shape = new Shape();
        new ClassReader(bytes).accept(shape, ClassReader.SKIP_DEBUG);
        return shape.problem();
    }

    private static boolean isAwaitNanos(int opcode, String owner, String name, String desc) {
        return opcode == Opcodes.INVOKEINTERFACE && owner.equals(CONDITION) && name.equals("awaitNanos")
                && desc.equals("(J)J");
    }

    private static boolean isConditionRead(int opcode, String owner, String name, String desc) {
        return opcode == Opcodes.GETFIELD && owner.equals(DESC_CLASS) && name.equals(CONDITION_FIELD)
                && desc.equals("L" + CONDITION + ";");
    }

    /** Reads the wait loop of the class (ASM core API only: the agent ships no tree API). */
    private static final class Shape extends ClassVisitor {
        private boolean method;
        private boolean lockRead;
        private final List<String> waits = new ArrayList<>(); // each await/signal/wait/notify call
        private final List<String> sequence = new ArrayList<>(); // the three instructions from the condition read
        private int conditionReads;
        private int awaitAt = -1; // instruction index of the awaitNanos
        private final RenamedReplyWait.Handlers handlers = new RenamedReplyWait.Handlers();

        Shape() {
            super(Opcodes.ASM9);
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
                private int sinceRead = -1; // instructions since the condition read, while watching the sequence

                private void insn(String what) {
                    if (sinceRead >= 0) {
                        sequence.add(what);
                        sinceRead = sequence.size() < 2 ? sinceRead + 1 : -1;
                    }
                    index++;
                }

                @Override
                public void visitTryCatchBlock(Label start, Label end, Label handler, String type) {
                    handlers.handler(start, end, type);
                }

                @Override
                public void visitLabel(Label label) {
                    handlers.label(label, index);
                }

                @Override
                public void visitFrame(int type, int numLocal, Object[] local, int numStack, Object[] stack) {
                    if (sinceRead >= 0) {
                        sequence.add("frame");
                    }
                }

                @Override
                public void visitInsn(int opcode) {
                    insn("insn" + opcode);
                }

                @Override
                public void visitIntInsn(int opcode, int operand) {
                    insn("int" + opcode);
                }

                @Override
                public void visitLdcInsn(Object value) {
                    insn("ldc");
                }

                @Override
                public void visitTypeInsn(int opcode, String type) {
                    insn("type" + opcode);
                }

                @Override
                public void visitIincInsn(int var, int increment) {
                    insn("iinc");
                }

                @Override
                public void visitMethodInsn(int opcode, String owner, String name, String desc, boolean itf) {
                    if (isAwaitNanos(opcode, owner, name, desc)) {
                        awaitAt = index;
                        waits.add("awaitNanos");
                        insn("awaitNanos");
                        return;
                    }
                    if (owner.equals(CONDITION) || (owner.equals("java/lang/Object")
                            && (name.equals("wait") || name.startsWith("notify")))) {
                        waits.add(owner + "." + name + desc);
                    }
                    insn("call");
                }

                @Override
                public void visitInvokeDynamicInsn(String name, String descriptor, org.objectweb.asm.Handle bsm,
                        Object... args) {
                    insn("indy");
                }

                @Override
                public void visitVarInsn(int opcode, int var) {
                    insn(opcode == Opcodes.LLOAD ? "lload" : "var" + opcode);
                }

                @Override
                public void visitFieldInsn(int opcode, String owner, String name, String desc) {
                    lockRead |= opcode == Opcodes.GETFIELD && owner.equals(DESC_CLASS) && name.equals(LOCK_FIELD)
                            && desc.equals("Ljava/util/concurrent/locks/ReentrantLock;");
                    if (isConditionRead(opcode, owner, name, desc)) {
                        conditionReads++;
                        index++;
                        sinceRead = 0;
                        return;
                    }
                    insn("field" + opcode);
                }

                @Override
                public void visitJumpInsn(int opcode, Label label) {
                    insn("jump");
                }

                @Override
                public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
                    insn("switch");
                }

                @Override
                public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
                    insn("switch");
                }
            };
        }

        String problem() {
            if (!method) {
                return "no instance method " + METHOD + DESC + " with a body, not synchronized";
            }
            if (!waits.equals(List.of("awaitNanos")) || conditionReads != 1 || !lockRead) {
                return "waits and signals " + waits + ", " + conditionReads + " reads of the call's condition"
                        + (lockRead ? "" : ", no read of its lock") + " (expected one Condition.awaitNanos(long))";
            }
            if (!sequence.equals(List.of("lload", "awaitNanos"))) {
                return "the condition read is followed by " + sequence + ", not by lload, awaitNanos";
            }
            return handlers.coverWait(awaitAt) ? null
                    : "the await is not covered by a finally (unlock) and an InterruptedException handler";
        }
    }

    /** Renames the method, redirects its await and adds the wrapper. Precondition: {@link #shapeProblem} is null. */
    static byte[] patch(byte[] bytes) {
        return RenamedReplyWait.renameAndWrap(bytes, METHOD, DESC, renamed -> new MethodVisitor(Opcodes.ASM9, renamed) {
            @Override
            public void visitFieldInsn(int opcode, String owner, String field, String desc) {
                if (!isConditionRead(opcode, owner, field, desc)) { // dropped: the hook gets the descriptor
                    super.visitFieldInsn(opcode, owner, field, desc);
                }
            }

            @Override
            public void visitMethodInsn(int opcode, String owner, String method, String desc, boolean itf) {
                if (isAwaitNanos(opcode, owner, method, desc)) {
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/invoke/MethodHandles", "lookup",
                            "()" + LOOKUP, false);
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOK, "awaitNanos",
                            "(Ljava/lang/Object;J" + LOOKUP + ")J", false);
                } else {
                    super.visitMethodInsn(opcode, owner, method, desc, itf);
                }
            }
        }, Opcodes.ALOAD, HOOK, "(Ljava/lang/Object;Ljava/lang/Object;" + LOOKUP + ")Ljava/lang/Object;",
                "com/sun/corba/ee/impl/encoding/CDRInputObject");
    }

    /** Whether {@code room} (the ORB's {@code ResponseWaitingRoomImpl}) has the patched reply wait. */
    static boolean patched(Class<?> room) {
        try {
            for (java.lang.reflect.Method m : room.getDeclaredMethods()) {
                if (m.getName().equals(METHOD + JacorbPatch.SUFFIX)) {
                    return true;
                }
            }
            return false;
        } catch (LinkageError e) {
            return false;
        }
    }
}
