package org.dthreads.iiop.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.dthreads.internal.RateLimitedLog;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * What the patches of an ORB's reply wait share ({@link JacorbReplyWaitPatch}, {@link GlassFishReplyWaitPatch}):
 * the method is renamed to {@code <name>$dthreads} (private, synthetic), its code passed through a redirecting
 * visitor, and a method with the original name, access and descriptor calls the adapter's hook
 * {@code hook(this, argument, MethodHandles.lookup())} and casts its result; and the shape guards' check that the
 * wait call is covered by a catch-all and an {@code InterruptedException} handler; and the guarded transform around
 * both. ASM core API only (the agent ships no tree API). Stateless.
 */
final class RenamedReplyWait {

    static final String LOOKUP = "Ljava/lang/invoke/MethodHandles$Lookup;";

    private RenamedReplyWait() {}

    /**
     * The class patched by {@code patch}, or null: left alone when patched already or not of the shape
     * {@code shapeProblem} expects (logged once under {@code key + "-shape"}: original-mode calls then use helper
     * threads), or when patching fails ({@code key + "-failed"}). Never throws a {@link RuntimeException}.
     */
    static byte[] guardedPatch(byte[] bytes, RateLimitedLog log, String key, String owner, String method, String orb,
            Function<byte[], String> shapeProblem, UnaryOperator<byte[]> patch) {
        try {
            if (JacorbPatch.alreadyPatched(bytes)) {
                return null;
            }
            String problem = shapeProblem.apply(bytes);
            if (problem != null) {
                log.warn(key + "-shape", "dthreads: " + owner.replace('/', '.') + "." + method
                        + " is not of the expected shape in this " + orb + " version (" + problem + "); original-mode"
                        + " calls wait for their replies on helper threads");
                return null;
            }
            return patch.apply(bytes);
        } catch (RuntimeException e) {
            log.error(key + "-failed", "dthreads: could not patch " + owner.replace('/', '.')
                    + "; original-mode calls wait for their replies on helper threads: " + e);
            return null;
        }
    }

    /**
     * {@code bytes} with {@code method + desc} renamed, its code passed through {@code redirect}, and the wrapper
     * added: {@code return (resultType) hook.method(this, <argument 1 loaded by argLoad>, MethodHandles.lookup())}
     * with {@code hookDesc}. The class must have that method (the caller's shape guard says so).
     */
    static byte[] renameAndWrap(byte[] bytes, String method, String desc, UnaryOperator<MethodVisitor> redirect,
            int argLoad, String hook, String hookDesc, String resultType) {
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            private int access = -1;
            private String[] exceptions;

            @Override
            public MethodVisitor visitMethod(int acc, String name, String descriptor, String signature, String[] exc) {
                if (!name.equals(method) || !descriptor.equals(desc)) {
                    return super.visitMethod(acc, name, descriptor, signature, exc);
                }
                access = acc;
                exceptions = exc;
                int renamed = (acc & ~(Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED)) | Opcodes.ACC_PRIVATE
                        | Opcodes.ACC_SYNTHETIC;
                return redirect.apply(super.visitMethod(renamed, name + JacorbPatch.SUFFIX, descriptor, signature, exc));
            }

            @Override
            public void visitEnd() {
                if (access != -1) {
                    MethodVisitor mv = super.visitMethod(access, method, desc, null, exceptions);
                    mv.visitCode();
                    mv.visitVarInsn(Opcodes.ALOAD, 0);
                    mv.visitVarInsn(argLoad, 1);
                    mv.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/invoke/MethodHandles", "lookup", "()" + LOOKUP,
                            false);
                    mv.visitMethodInsn(Opcodes.INVOKESTATIC, hook, method, hookDesc, false);
                    mv.visitTypeInsn(Opcodes.CHECKCAST, resultType);
                    mv.visitInsn(Opcodes.ARETURN);
                    mv.visitMaxs(0, 0);
                    mv.visitEnd();
                }
                super.visitEnd();
            }
        }, 0);
        return writer.toByteArray();
    }

    /** The exception handlers of one method by instruction index, as a shape guard's visitor meets them. */
    static final class Handlers {
        private final List<Object[]> handlers = new ArrayList<>(); // {start, end, type}
        private final Map<Label, Integer> positions = new HashMap<>();

        void handler(Label start, Label end, String type) {
            handlers.add(new Object[] {start, end, type});
        }

        void label(Label label, int index) {
            positions.put(label, index);
        }

        /** Whether the instruction at {@code index} is covered by a catch-all and an InterruptedException handler. */
        boolean coverWait(int index) {
            boolean any = false;
            boolean interrupted = false;
            for (Object[] h : handlers) {
                Integer start = positions.get((Label) h[0]);
                Integer end = positions.get((Label) h[1]);
                if (start != null && end != null && start <= index && index < end) {
                    any |= h[2] == null;
                    interrupted |= "java/lang/InterruptedException".equals(h[2]);
                }
            }
            return any && interrupted;
        }
    }
}
