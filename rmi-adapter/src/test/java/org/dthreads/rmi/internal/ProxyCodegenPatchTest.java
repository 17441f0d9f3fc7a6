package org.dthreads.rmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.util.CheckClassAdapter;

/**
 * The patch of the PFL stub generator's interface check, on a class of the same shape as PFL's
 * {@code ClassInfoBase.addMethodInfo} (whose check is {@code Modifier.isAbstract(mi.modifiers())}): the
 * GlassFish ORB itself is exercised by the interop tests ({@code RmiIiopTransparencyTest}).
 */
class ProxyCodegenPatchTest {

    private static final String NAME = "org/dthreads/rmi/internal/ProxyCodegenShape";

    /** {@code public static boolean addMethodInfo(int modifiers) { return Modifier.isAbstract(modifiers); }} */
    static byte[] shape() {
        ClassWriter w = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS);
        w.visit(Opcodes.V1_8, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, NAME, null, "java/lang/Object", null);
        MethodVisitor mv = w.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "addMethodInfo", "(I)Z", null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ILOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/reflect/Modifier", "isAbstract", "(I)Z", false);
        mv.visitInsn(Opcodes.IRETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        w.visitEnd();
        return w.toByteArray();
    }

    static Method patchedCheck() throws Exception {
        byte[] patched = RmiTransformer.patchProxyCodegen(shape());
        StringWriter problems = new StringWriter();
        CheckClassAdapter.verify(new ClassReader(patched), ProxyCodegenPatchTest.class.getClassLoader(), false,
                new PrintWriter(problems));
        assertEquals("", problems.toString());
        Class<?> loaded = new ClassLoader(ProxyCodegenPatchTest.class.getClassLoader()) {
            Class<?> define() {
                return defineClass(NAME.replace('/', '.'), patched, 0, patched.length);
            }
        }.define();
        return loaded.getMethod("addMethodInfo", int.class);
    }

    @Test
    void abstractAndDefaultInterfaceMethodsPassStaticAndPrivateOnesStillFail() throws Exception {
        Method check = patchedCheck();
        assertEquals(true, check.invoke(null, Modifier.PUBLIC | Modifier.ABSTRACT), "abstract");
        assertEquals(true, check.invoke(null, Modifier.PUBLIC), "default method (a twin, MonitorPort's entry)");
        assertEquals(false, check.invoke(null, Modifier.PUBLIC | Modifier.STATIC), "static interface method");
        assertEquals(false, check.invoke(null, Modifier.PRIVATE), "private interface method");
    }

    @Test
    void aClassWithoutTheCheckIsLeftAlone() {
        ClassWriter w = new ClassWriter(0);
        w.visit(Opcodes.V1_8, Opcodes.ACC_PUBLIC, NAME, null, "java/lang/Object", null);
        w.visitEnd();
        assertNull(RmiTransformer.patchProxyCodegen(w.toByteArray()));
    }
}
