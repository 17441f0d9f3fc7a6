package org.dthreads.rmi.internal;

import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Lets an rmic skeleton ({@code *_Skel}, a class implementing {@code java.rmi.server.Skeleton}) serve twins:
 * its {@code dispatch(Remote obj, RemoteCall call, int opnum, long hash)} gets the prologue
 * <pre>
 *   if (opnum &lt; 0 &amp;&amp; SkeletonTwins.serve(obj, call, hash)) return;
 * </pre>
 * and is otherwise unchanged. Expects {@code ClassReader.EXPAND_FRAMES} (the inserted frame is an expanded
 * one); a class older than Java 6 gets no frame, as it has none.
 */
final class SkeletonPatch extends ClassVisitor {

    static final String SKELETON = "java/rmi/server/Skeleton";
    private static final String DISPATCH = "(Ljava/rmi/Remote;Ljava/rmi/server/RemoteCall;IJ)V";

    private String owner;
    private int version;
    private boolean patched;

    SkeletonPatch(ClassVisitor next) {
        super(Opcodes.ASM9, next);
    }

    boolean patched() {
        return patched;
    }

    @Override
    public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
        this.owner = name;
        this.version = version & 0xFFFF;
        super.visit(version, access, name, signature, superName, interfaces);
    }

    @Override
    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
        MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
        if (!"dispatch".equals(name) || !DISPATCH.equals(descriptor) || (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_STATIC)) != 0) {
            return mv;
        }
        patched = true;
        return new MethodVisitor(Opcodes.ASM9, mv) {
            @Override
            public void visitCode() {
                super.visitCode();
                Label skeleton = new Label();
                visitVarInsn(Opcodes.ILOAD, 3);
                visitJumpInsn(Opcodes.IFGE, skeleton);
                visitVarInsn(Opcodes.ALOAD, 1);
                visitVarInsn(Opcodes.ALOAD, 2);
                visitVarInsn(Opcodes.LLOAD, 4);
                visitMethodInsn(Opcodes.INVOKESTATIC, "org/dthreads/rmi/internal/SkeletonTwins", "serve",
                        "(Ljava/rmi/Remote;Ljava/rmi/server/RemoteCall;J)Z", false);
                visitJumpInsn(Opcodes.IFEQ, skeleton);
                visitInsn(Opcodes.RETURN);
                visitLabel(skeleton);
                if (version >= Opcodes.V1_6) {
                    visitFrame(Opcodes.F_NEW, 5, new Object[] {owner, "java/rmi/Remote", "java/rmi/server/RemoteCall",
                            Opcodes.INTEGER, Opcodes.LONG}, 0, new Object[0]);
                }
                visitInsn(Opcodes.NOP); // the original code may have its own frame at its first instruction
            }
        };
    }
}
