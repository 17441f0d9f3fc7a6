package org.dthreads.iiop.internal;

import org.dthreads.internal.RateLimitedLog;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Load-time patch of {@code org.jacorb.orb.giop.RequestOutputStream} for {@link JacorbInlineContext}
 * (chained from {@link JacorbPatch}): in the constructor that writes a request header, both calls
 * {@code ServiceContextListHelper.write(this, Messages.service_context)} (the GIOP 1.0/1.1 and the 1.2
 * layout) call {@link JacorbInlineContext#writeContextList} instead, with the same arguments and
 * descriptor. Nothing else changes: no new branch, local or stack slot, so the class's frames stay valid.
 *
 * <p>Version guard: patched only if that constructor is there and makes exactly two such calls
 * (JacORB 3.0 to 3.9); otherwise the class stays as it is, one line is logged, and the identity context
 * goes through JacORB's context list as before. Stateless.
 */
final class JacorbInlinePatch {

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(JacorbPatch.class);

    static final String REQUEST_OUTPUT_STREAM = "org/jacorb/orb/giop/RequestOutputStream";
    static final String CONSTRUCTOR_DESC = "(Lorg/jacorb/orb/ORB;Lorg/jacorb/orb/giop/ClientConnection;ILjava/lang/String;ZS"
            + "Lorg/omg/TimeBase/UtcT;Lorg/omg/TimeBase/UtcT;Lorg/omg/TimeBase/UtcT;[BI)V";
    static final String LIST_HELPER = "org/omg/IOP/ServiceContextListHelper";
    static final String WRITE_DESC = "(Lorg/omg/CORBA/portable/OutputStream;[Lorg/omg/IOP/ServiceContext;)V";
    /** Built at run time so that the agent's shading never rewrites it. */
    static final String HOOK = String.join("/", "org", "dthreads", "iiop", "internal", "JacorbInlineContext");
    static final String HOOK_METHOD = "writeContextList";

    private JacorbInlinePatch() {}

    /** The patched class, or null (left alone: patched already, or the hook point is not as expected; logged). */
    static byte[] transform(byte[] bytes) {
        try {
            int[] calls = count(bytes);
            if (calls[1] > 0) {
                return null; // patched before
            }
            if (calls[0] != 2) {
                LOG.warn("jacorb-inline-missing", "dthreads: identity context not written inline: "
                        + REQUEST_OUTPUT_STREAM.replace('/', '.') + "'s header constructor makes " + calls[0]
                        + " calls of ServiceContextListHelper.write (expected 2) in this JacORB version;"
                        + " it goes through JacORB's context list");
                return null;
            }
            return patch(bytes);
        } catch (RuntimeException e) {
            LOG.error("jacorb-inline-failed", "dthreads: could not patch " + REQUEST_OUTPUT_STREAM.replace('/', '.')
                    + "; the identity context goes through JacORB's context list: " + e);
            return null;
        }
    }

    /** {calls of ServiceContextListHelper.write, calls of the hook} in the header constructor. */
    static int[] count(byte[] bytes) {
        int[] calls = new int[2];
        new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                    String[] exceptions) {
                if (!isHeaderConstructor(name, descriptor)) {
                    return null;
                }
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String method, String desc, boolean itf) {
                        if (opcode == Opcodes.INVOKESTATIC && WRITE_DESC.equals(desc)) {
                            if (isListWrite(owner, method)) {
                                calls[0]++;
                            } else if (HOOK.equals(owner) && HOOK_METHOD.equals(method)) {
                                calls[1]++;
                            }
                        }
                    }
                };
            }
        }, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return calls;
    }

    /** Redirects the list writes of the header constructor. Precondition: {@link #count} found them. */
    static byte[] patch(byte[] bytes) {
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new ClassWriter(reader, 0);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                    String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
                if (!isHeaderConstructor(name, descriptor)) {
                    return mv;
                }
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String method, String desc, boolean itf) {
                        if (opcode == Opcodes.INVOKESTATIC && WRITE_DESC.equals(desc) && isListWrite(owner, method)) {
                            super.visitMethodInsn(opcode, HOOK, HOOK_METHOD, desc, false);
                        } else {
                            super.visitMethodInsn(opcode, owner, method, desc, itf);
                        }
                    }
                };
            }
        }, 0);
        return writer.toByteArray();
    }

    private static boolean isHeaderConstructor(String name, String descriptor) {
        return "<init>".equals(name) && CONSTRUCTOR_DESC.equals(descriptor);
    }

    private static boolean isListWrite(String owner, String method) {
        return LIST_HELPER.equals(owner) && "write".equals(method);
    }
}
