package org.dthreads.rmi.internal;

import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Adds a prologue to {@code java.rmi.server.RemoteObjectInvocationHandler.invokeRemoteMethod}
 * (the path of every dynamic-proxy JRMP stub):
 * <pre>
 *   Object r = RmiClientHook.invokeProxy(proxy, method, args, this.ref);
 *   if (r != RmiClientHook.NOT_HANDLED) return r;
 *   ... original body ...
 * </pre>
 * Only a method body changes, as retransformation requires. Expects {@code ClassReader.EXPAND_FRAMES}
 * (the inserted frame is an expanded one).
 */
final class InvocationHandlerPatch extends ClassVisitor {

    static final String TARGET = "java/rmi/server/RemoteObjectInvocationHandler";
    private static final String HOOK = "org/dthreads/rmi/internal/RmiClientHook";
    private static final String METHOD_DESCRIPTOR = "(Ljava/lang/Object;Ljava/lang/reflect/Method;[Ljava/lang/Object;)Ljava/lang/Object;";

    private boolean patched;

    InvocationHandlerPatch(ClassVisitor next) {
        super(Opcodes.ASM9, next);
    }

    boolean patched() {
        return patched;
    }

    @Override
    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
        MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
        if (!"invokeRemoteMethod".equals(name) || !METHOD_DESCRIPTOR.equals(descriptor)) {
            return mv;
        }
        patched = true;
        return new MethodVisitor(Opcodes.ASM9, mv) {
            @Override
            public void visitCode() {
                super.visitCode();
                Label plain = new Label();
                visitVarInsn(Opcodes.ALOAD, 1);
                visitVarInsn(Opcodes.ALOAD, 2);
                visitVarInsn(Opcodes.ALOAD, 3);
                visitVarInsn(Opcodes.ALOAD, 0);
                visitFieldInsn(Opcodes.GETFIELD, "java/rmi/server/RemoteObject", "ref", "Ljava/rmi/server/RemoteRef;");
                visitMethodInsn(Opcodes.INVOKESTATIC, HOOK, "invokeProxy",
                        "(Ljava/lang/Object;Ljava/lang/reflect/Method;[Ljava/lang/Object;Ljava/rmi/server/RemoteRef;)Ljava/lang/Object;",
                        false);
                visitInsn(Opcodes.DUP);
                visitFieldInsn(Opcodes.GETSTATIC, HOOK, "NOT_HANDLED", "Ljava/lang/Object;");
                visitJumpInsn(Opcodes.IF_ACMPEQ, plain);
                visitInsn(Opcodes.ARETURN);
                visitLabel(plain);
                visitFrame(Opcodes.F_NEW, 4,
                        new Object[] {TARGET, "java/lang/Object", "java/lang/reflect/Method", "[Ljava/lang/Object;"},
                        1, new Object[] {"java/lang/Object"});
                visitInsn(Opcodes.POP);
            }
        };
    }
}
