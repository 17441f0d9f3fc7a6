package org.dthreads.monitor.internal.rewriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.dthreads.monitor.Monitors;
import org.dthreads.monitor.internal.rewriter.fixtures.SynchronizedNative;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/** The documented limits of the rewriter (docs/rewriter.md, "Known limits") that a unit test can show. */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RewriterLimitsTest {

    @Test
    void aClassWithASynchronizedNativeMethodKeepsTheJvmMonitorForItsJavaMethodsToo() throws Exception {
        Class<?> rewritten = Class.forName(SynchronizedNative.class.getName(), true, new MonitorRewriterTest.RewritingLoader());
        assertTrue((rewritten.getMethod("nativeOp").getModifiers() & java.lang.reflect.Modifier.SYNCHRONIZED) != 0,
                "the native method keeps ACC_SYNCHRONIZED");
        assertEquals(0, rewritten.getMethod("increment").getModifiers() & java.lang.reflect.Modifier.SYNCHRONIZED,
                "the Java method is lowered");
        assertFalse(rewritten.isAnnotationPresent(org.dthreads.monitor.Rewritten.class), "no marker");
        Object o = rewritten.getConstructor().newInstance();
        assertFalse(Monitors.isEmulated(o), "instances stay native");
        assertFalse(Monitors.isEmulated(rewritten), "so does the Class object");
        assertEquals(true, rewritten.getMethod("holdsNativeMonitor").invoke(o),
                "the lowered method takes the native monitor, the one nativeOp takes");
        assertEquals(1, rewritten.getMethod("increment").invoke(o));
        assertEquals(2, rewritten.getMethod("incrementInBlock").invoke(o));
        byte[] once = MonitorRewriterTest.rewrite(SynchronizedNative.class).bytes();
        MonitorRewriter.Result twice = MonitorRewriter.rewrite(once, getClass().getClassLoader());
        assertFalse(twice.rewritten(), "without the marker, a second rewrite stops at the split blocks: " + twice.skipReason());
    }

    @Test
    void aStaticSynchronizedMethodInAClassFileOlderThanJava5LeavesTheClassUntouched() {
        MonitorRewriter.Result old = MonitorRewriter.rewrite(synchronizedMethodClass(Opcodes.V1_4, true),
                getClass().getClassLoader());
        assertNull(old.bytes());
        assertTrue(old.skipReason().contains("older than Java 5"), old.skipReason());
        assertTrue(MonitorRewriter.rewrite(synchronizedMethodClass(Opcodes.V1_5, true), getClass().getClassLoader())
                .rewritten(), "ldc of a class exists from Java 5 on");
    }

    @Test
    void anInstanceSynchronizedMethodInAnOldClassFileIsRewrittenAndRuns() throws Exception {
        MonitorRewriter.Result result = MonitorRewriter.rewrite(synchronizedMethodClass(Opcodes.V1_4, false),
                getClass().getClassLoader());
        assertTrue(result.rewritten(), result.skipReason());
        Class<?> c = new RewriterShapesTest.BytesLoader(java.util.Map.of("old/Sync", result.bytes())).loadClass("old.Sync");
        Object o = c.getConstructor().newInstance();
        assertEquals(true, c.getMethod("holds").invoke(o));
    }

    /** {@code public class old.Sync { [static] synchronized boolean holds() { return Thread.holdsLock(..); } }} */
    private static byte[] synchronizedMethodClass(int version, boolean isStatic) {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        cw.visit(version, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, "old/Sync", null, "java/lang/Object", null);
        MethodVisitor init = cw.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        init.visitInsn(Opcodes.RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_SYNCHRONIZED | (isStatic ? Opcodes.ACC_STATIC : 0),
                "holds", "()Z", null, null);
        mv.visitCode();
        if (isStatic) {
            mv.visitInsn(Opcodes.ACONST_NULL); // any reference: only the shape matters here
            mv.visitInsn(Opcodes.POP);
            mv.visitInsn(Opcodes.ICONST_1);
        } else {
            mv.visitVarInsn(Opcodes.ALOAD, 0);
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/Thread", "holdsLock", "(Ljava/lang/Object;)Z", false);
        }
        mv.visitInsn(Opcodes.IRETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }
}
