package org.dthreads.monitor.inventory;

import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Issue 21, the "hybrid" option measured: the first physical thread of a class would also take the JVM's
 * monitor, callback threads of the class would not, so one copy of a block would run {@code monitorenter}
 * and {@code monitorexit} under a condition. Generates that shape, runs it hot and prints the time per
 * call next to the same method without the condition. Run with {@code -XX:+PrintCompilation} to see
 * whether HotSpot compiles the conditional method at all ({@code docs/rewriter.md}, "Objects the JDK locks").
 *
 * <pre>java -XX:+PrintCompilation -cp monitor-lib/target/test-classes:$ASM org.dthreads.monitor.inventory.ConditionalMonitorProbe</pre>
 */
public final class ConditionalMonitorProbe {
    private ConditionalMonitorProbe() {}

    public static void main(String[] args) throws Throwable {
        Class<?> c = MethodHandles.lookup().defineClass(generate());
        Method conditional = c.getMethod("conditional", Object.class, boolean.class, int.class);
        Method plain = c.getMethod("plain", Object.class, int.class);
        Object lock = new Object();
        for (int round = 0; round < 5; round++) {
            long t0 = System.nanoTime();
            int x = 0;
            for (int i = 0; i < 2_000_000; i++) {
                x = (int) conditional.invoke(null, lock, true, x);
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < 2_000_000; i++) {
                x = (int) plain.invoke(null, lock, x);
            }
            long t2 = System.nanoTime();
            System.out.printf("round %d: conditional %.1f ns/call, plain %.1f ns/call (%d)%n", round,
                    (t1 - t0) / 2e6, (t2 - t1) / 2e6, x);
        }
    }

    /** {@code conditional(o, first, x)}: {@code if (first) monitorenter o; x++; if (first) monitorexit o}. */
    private static byte[] generate() {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_FRAMES);
        String name = ConditionalMonitorProbe.class.getPackageName().replace('.', '/') + "/ConditionalMonitorShape";
        cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_FINAL, name, null, "java/lang/Object", null);
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "conditional", "(Ljava/lang/Object;ZI)I", null, null);
        mv.visitCode();
        Label noEnter = new Label();
        Label noExit = new Label();
        mv.visitVarInsn(Opcodes.ILOAD, 1);
        mv.visitJumpInsn(Opcodes.IFEQ, noEnter);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitInsn(Opcodes.MONITORENTER);
        mv.visitLabel(noEnter);
        mv.visitIincInsn(2, 1);
        mv.visitVarInsn(Opcodes.ILOAD, 1);
        mv.visitJumpInsn(Opcodes.IFEQ, noExit);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitInsn(Opcodes.MONITOREXIT);
        mv.visitLabel(noExit);
        mv.visitVarInsn(Opcodes.ILOAD, 2);
        mv.visitInsn(Opcodes.IRETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "plain", "(Ljava/lang/Object;I)I", null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitInsn(Opcodes.MONITORENTER);
        mv.visitIincInsn(1, 1);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitInsn(Opcodes.MONITOREXIT);
        mv.visitVarInsn(Opcodes.ILOAD, 1);
        mv.visitInsn(Opcodes.IRETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }
}
