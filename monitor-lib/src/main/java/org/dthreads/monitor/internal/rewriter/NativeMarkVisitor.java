package org.dthreads.monitor.internal.rewriter;

import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Marks objects that JDK code also locks as native ({@code Monitors.keepNative}) where they cross the
 * JDK's API in application code, so that {@code synchronized} on them in rewritten code takes the JVM's
 * monitor the JDK takes (issue 21). The cases are those the JDK inventory finds
 * ({@code docs/rewriter.md}, "Objects the JDK locks"):
 * <ul>
 *   <li>the result of {@code getClassLoadingLock(String)} (any receiver), and the value an override of it
 *       returns: a parallel-capable loader's per-name lock, which {@code ClassLoader.loadClass} locks;</li>
 *   <li>the result of {@code blockingLock()}: {@code SelectableChannel}'s lock of {@code configureBlocking}
 *       and {@code register};</li>
 *   <li>the argument of {@code super(lock)} to {@code Reader(Object)} / {@code Writer(Object)}, and a value
 *       stored into the {@code lock} field of a {@code Reader}/{@code Writer} subclass: the JDK's read and
 *       write methods lock it;</li>
 *   <li>the {@code notifier} argument of {@code new InvocationEvent(..)}: the JDK notifies it natively after
 *       dispatch, the idiom waits on it;</li>
 *   <li>{@code BeanContext.globalHierarchyLock} when read (by any owner name: javac names the class that
 *       inherits the constant).</li>
 * </ul>
 * Runs after the monitor rewriting, on its output; the inserted call has the stack shape
 * {@code Object -> Object}, so nothing else moves: no frame changes (derived or computed ones alike; a value
 * typed {@code Object} by the call is consumed right away, before any frame).
 */
final class NativeMarkVisitor extends ClassVisitor {
    private static final String MONITORS = "org/dthreads/monitor/Monitors";
    private static final String KEEP_NATIVE = "keepNative";
    private static final String OBJECT_TO_OBJECT = "(Ljava/lang/Object;)Ljava/lang/Object;";
    private static final String GET_CLASS_LOADING_LOCK = "(Ljava/lang/String;)Ljava/lang/Object;";
    private static final String LOCK_CONSTRUCTOR = "(Ljava/lang/Object;)V";

    private final ClassHierarchy hierarchy;

    NativeMarkVisitor(ClassVisitor next, ClassHierarchy hierarchy) {
        super(Opcodes.ASM9, next);
        this.hierarchy = hierarchy;
    }

    @Override
    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
        MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
        boolean returnsClassLoadingLock = name.equals("getClassLoadingLock") && descriptor.equals(GET_CLASS_LOADING_LOCK)
                && (access & Opcodes.ACC_STATIC) == 0;
        return next == null ? null : new Marks(next, returnsClassLoadingLock);
    }

    private final class Marks extends MethodVisitor {
        private final boolean returnsClassLoadingLock;

        Marks(MethodVisitor next, boolean returnsClassLoadingLock) {
            super(Opcodes.ASM9, next);
            this.returnsClassLoadingLock = returnsClassLoadingLock;
        }

        private void keepNative() {
            super.visitMethodInsn(Opcodes.INVOKESTATIC, MONITORS, KEEP_NATIVE, OBJECT_TO_OBJECT, false);
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
            if (opcode == Opcodes.INVOKESPECIAL && name.equals("<init>")) {
                if (descriptor.equals(LOCK_CONSTRUCTOR) && (owner.equals("java/io/Reader") || owner.equals("java/io/Writer"))) {
                    keepNative(); // the lock argument is on top
                } else if (owner.equals("java/awt/event/InvocationEvent") && descriptor.endsWith("Ljava/lang/Object;Z)V")) {
                    // (.., Object notifier, boolean catchThrowables): the notifier is under the boolean
                    super.visitInsn(Opcodes.SWAP);
                    keepNative();
                    super.visitInsn(Opcodes.SWAP);
                }
            }
            super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
            if (opcode != Opcodes.INVOKESTATIC && ((name.equals("getClassLoadingLock") && descriptor.equals(GET_CLASS_LOADING_LOCK))
                    || (name.equals("blockingLock") && descriptor.equals("()Ljava/lang/Object;")))) {
                keepNative();
            }
        }

        @Override
        public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
            boolean objectField = descriptor.equals("Ljava/lang/Object;");
            if (opcode == Opcodes.PUTFIELD && objectField && name.equals("lock") && isReaderOrWriter(owner)) {
                keepNative(); // the value stored is on top
            }
            super.visitFieldInsn(opcode, owner, name, descriptor);
            if (opcode == Opcodes.GETSTATIC && objectField && name.equals("globalHierarchyLock")) {
                keepNative();
            }
        }

        @Override
        public void visitInsn(int opcode) {
            if (opcode == Opcodes.ARETURN && returnsClassLoadingLock) {
                keepNative();
            }
            super.visitInsn(opcode);
        }
    }

    /** Only asked for a store into a field named {@code lock}; an unknown type is not a Reader or Writer. */
    private boolean isReaderOrWriter(String owner) {
        try {
            return hierarchy.isSubtypeOf(owner, "java/io/Reader") || hierarchy.isSubtypeOf(owner, "java/io/Writer");
        } catch (RuntimeException e) {
            return false;
        }
    }
}
