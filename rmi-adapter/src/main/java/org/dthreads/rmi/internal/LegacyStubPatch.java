package org.dthreads.rmi.internal;

import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Routes the remote calls of a legacy static stub (a class extending {@code java.rmi.server.RemoteStub},
 * as {@code rmic -v1.2} generated) through {@link RmiClientHook#invokeStub}: each
 * {@code RemoteRef.invoke(Remote, Method, Object[], long)} call becomes a static call with the same
 * operands, so the stack shape and the rest of the stub are unchanged. Stubs of the older
 * {@code -v1.1} protocol ({@code newCall}/{@code invoke(RemoteCall)}) are left alone.
 */
final class LegacyStubPatch extends ClassVisitor {

    static final String REMOTE_STUB = "java/rmi/server/RemoteStub";
    private static final String REMOTE_REF = "java/rmi/server/RemoteRef";
    private static final String INVOKE_DESCRIPTOR = "(Ljava/rmi/Remote;Ljava/lang/reflect/Method;[Ljava/lang/Object;J)Ljava/lang/Object;";

    private int callSites;

    LegacyStubPatch(ClassVisitor next) {
        super(Opcodes.ASM9, next);
    }

    int callSites() {
        return callSites;
    }

    @Override
    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
        return new MethodVisitor(Opcodes.ASM9, super.visitMethod(access, name, descriptor, signature, exceptions)) {
            @Override
            public void visitMethodInsn(int opcode, String owner, String method, String desc, boolean isInterface) {
                if (opcode == Opcodes.INVOKEINTERFACE && REMOTE_REF.equals(owner) && "invoke".equals(method)
                        && INVOKE_DESCRIPTOR.equals(desc)) {
                    callSites++;
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, "org/dthreads/rmi/internal/RmiClientHook", "invokeStub",
                            "(L" + REMOTE_REF + ";" + INVOKE_DESCRIPTOR.substring(1), false);
                } else {
                    super.visitMethodInsn(opcode, owner, method, desc, isInterface);
                }
            }
        };
    }
}
