package org.dthreads.rmi.internal;

import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Lets the GlassFish ORB's dynamic RMI-IIOP stubs be generated for remote interfaces with default methods,
 * such as the JRMP twins and {@link MonitorPort} the agent adds.
 *
 * <p>The GlassFish ORB generates its dynamic stubs with the PFL code generator, whose reflective model of an
 * interface ({@code ClassInfoBase.addMethodInfo}) predates Java 8 and rejects any interface method that is
 * not abstract ({@code IllegalStateException: All methods in an interface must be abstract}); the ORB
 * swallows that, so {@code PortableRemoteObject.toStub} reports {@code NoSuchObjectException: object not
 * exported} and {@code narrow} returns null. A generated stub is a proxy: it overrides every instance method
 * of its interfaces, a default one as well as an abstract one. The patch therefore accepts an interface
 * method that is abstract or an instance default method; a static or private interface method is still
 * rejected as before, so programs the ORB refuses without the agent are refused the same way with it.
 *
 * <p>The single {@code Modifier.isAbstract(int)} call in {@code addMethodInfo} becomes a call of a static
 * method this patch adds to the class (nothing outside the ORB's own class is referenced, so module and
 * loader boundaries are not crossed).
 */
final class ProxyCodegenPatch extends ClassVisitor {

    static final String TARGET = "org/glassfish/pfl/dynamic/codegen/impl/ClassInfoBase";
    private static final String CHECKED_METHOD = "addMethodInfo";
    private static final String ADDED_METHOD = "dthreads$overridableInInterface";

    private String owner;
    private int callSites;

    ProxyCodegenPatch(ClassVisitor next) {
        super(Opcodes.ASM9, next);
    }

    /** How many checks were replaced (1 on the PFL versions known; 0 means the shape changed). */
    int callSites() {
        return callSites;
    }

    @Override
    public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
        owner = name;
        super.visit(version, access, name, signature, superName, interfaces);
    }

    @Override
    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
        MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
        if (!CHECKED_METHOD.equals(name)) {
            return mv;
        }
        return new MethodVisitor(Opcodes.ASM9, mv) {
            @Override
            public void visitMethodInsn(int opcode, String owner2, String method, String desc, boolean isInterface) {
                if (opcode == Opcodes.INVOKESTATIC && "java/lang/reflect/Modifier".equals(owner2)
                        && "isAbstract".equals(method) && "(I)Z".equals(desc)) {
                    callSites++;
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, owner, ADDED_METHOD, "(I)Z", false);
                } else {
                    super.visitMethodInsn(opcode, owner2, method, desc, isInterface);
                }
            }
        };
    }

    @Override
    public void visitEnd() {
        if (callSites > 0) {
            // static boolean dthreads$overridableInInterface(int m) { return (m & ABSTRACT) != 0 || (m & (STATIC | PRIVATE)) == 0; }
            MethodVisitor mv = super.visitMethod(Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_SYNTHETIC,
                    ADDED_METHOD, "(I)Z", null, null);
            mv.visitCode();
            Label yes = new Label();
            mv.visitVarInsn(Opcodes.ILOAD, 0);
            mv.visitIntInsn(Opcodes.SIPUSH, Opcodes.ACC_ABSTRACT);
            mv.visitInsn(Opcodes.IAND);
            mv.visitJumpInsn(Opcodes.IFNE, yes);
            mv.visitVarInsn(Opcodes.ILOAD, 0);
            mv.visitIntInsn(Opcodes.BIPUSH, Opcodes.ACC_STATIC | Opcodes.ACC_PRIVATE);
            mv.visitInsn(Opcodes.IAND);
            mv.visitJumpInsn(Opcodes.IFEQ, yes);
            mv.visitInsn(Opcodes.ICONST_0);
            mv.visitInsn(Opcodes.IRETURN);
            mv.visitLabel(yes);
            mv.visitInsn(Opcodes.ICONST_1);
            mv.visitInsn(Opcodes.IRETURN);
            mv.visitMaxs(0, 0);
            mv.visitEnd();
        }
        super.visitEnd();
    }
}
