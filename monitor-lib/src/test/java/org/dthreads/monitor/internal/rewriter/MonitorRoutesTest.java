package org.dthreads.monitor.internal.rewriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import org.dthreads.monitor.Monitors;
import org.dthreads.monitor.internal.rewriter.fixtures.SerializableRoutes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.ConstantDynamic;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.util.CheckClassAdapter;

/**
 * Routes to monitor methods that javac never emits ({@code ldc} of a method handle, a dynamic constant, an
 * owner other than {@code Object}, {@code invokeinterface}), in a class generated here: plain, each acts on
 * the JVM's monitor of a lock held by {@code synchronized}; rewritten, on the emulated monitor of the lock
 * held by {@code Monitors.enter}. Then the routes that are reported instead of rewritten. The javac-emitted
 * routes are in the shapes fixture {@code Routes} ({@link RewriterShapesTest}).
 */
@Timeout(60)
class MonitorRoutesTest {

    private static final String CRAFTED = "routes/Crafted";
    private static final String MH = "java/lang/invoke/MethodHandle";

    @Test
    void handleConstantsAndOddOwnersActOnTheMonitorTheCallerHolds() throws Throwable {
        byte[] original = crafted();
        MonitorRewriter.Result result = MonitorRewriter.rewrite(original, getClass().getClassLoader());
        assertTrue(result.rewritten(), result.skipReason());
        verify(result.bytes());
        assertEquals(List.of("otherBootstrapStringNotify(Ljava/lang/String;)V: bootstrap argument java.lang.String.notifyAll"
                + " (a replacement would change its type)"), result.unrewritableSites());
        Class<?> plain = new RewriterShapesTest.BytesLoader(Map.of(CRAFTED, original)).loadClass("routes.Crafted");
        Class<?> rewritten = new RewriterShapesTest.BytesLoader(Map.of(CRAFTED, result.bytes())).loadClass("routes.Crafted");
        for (String name : List.of("ldcNotify", "ldcNotifyAllOnString", "condyNotify", "stringOwnerNotifyAll", "interfaceNotify")) {
            Method plainMethod = method(plain, name);
            // emulated either way (a plain object, or a string for String and CharSequence parameters)
            Object lock = plainMethod.getParameterTypes()[0] == Object.class ? new Object() : new String("lock");
            synchronized (lock) {
                plainMethod.invoke(null, lock);
            }
            assertThrows(InvocationTargetException.class, () -> plainMethod.invoke(null, lock), "control: " + name + " outside");
            Method rewrittenMethod = method(rewritten, name);
            Monitors.enter(lock);
            try {
                rewrittenMethod.invoke(null, lock); // before the fix: IllegalMonitorStateException
            } finally {
                Monitors.exit(lock);
            }
            InvocationTargetException outside = assertThrows(InvocationTargetException.class,
                    () -> rewrittenMethod.invoke(null, lock));
            assertEquals(IllegalMonitorStateException.class, outside.getCause().getClass(), name);
        }
        Object lock = new Object();
        Monitors.enter(lock);
        try {
            assertEquals(true, method(rewritten, "ldcHoldsLock").invoke(null, lock));
        } finally {
            Monitors.exit(lock);
        }
        assertEquals(false, method(rewritten, "ldcHoldsLock").invoke(null, lock));
    }

    @Test
    void threadSubclassOwnersAreResolvedThroughTheHierarchy() throws Exception {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, "routes/MyThread", null, "java/lang/Thread", null);
        MethodVisitor init = cw.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Thread", "<init>", "()V", false);
        init.visitInsn(Opcodes.RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
        // an override calling super.interrupt(): must stay invokespecial (Monitors.interrupt would call it again)
        MethodVisitor override = cw.visitMethod(Opcodes.ACC_PUBLIC, "interrupt", "()V", null, null);
        override.visitCode();
        override.visitVarInsn(Opcodes.ALOAD, 0);
        override.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Thread", "interrupt", "()V", false);
        override.visitInsn(Opcodes.RETURN);
        override.visitMaxs(0, 0);
        override.visitEnd();
        MethodVisitor holds = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "holds", "(Ljava/lang/Object;)Z", null, null);
        holds.visitCode();
        holds.visitVarInsn(Opcodes.ALOAD, 0);
        holds.visitMethodInsn(Opcodes.INVOKESTATIC, "routes/MyThread", "holdsLock", "(Ljava/lang/Object;)Z", false);
        holds.visitInsn(Opcodes.IRETURN);
        holds.visitMaxs(0, 0);
        holds.visitEnd();
        MethodVisitor other = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "interruptWorker",
                "(Ljava/util/concurrent/ForkJoinWorkerThread;)V", null, null);
        other.visitCode();
        other.visitVarInsn(Opcodes.ALOAD, 0);
        other.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/util/concurrent/ForkJoinWorkerThread", "interrupt", "()V", false);
        other.visitInsn(Opcodes.RETURN);
        other.visitMaxs(0, 0);
        other.visitEnd();
        cw.visitEnd();

        MonitorRewriter.Result result = MonitorRewriter.rewrite(cw.toByteArray(), getClass().getClassLoader());
        assertTrue(result.rewritten(), result.skipReason());
        verify(result.bytes());
        assertEquals(2, result.monitorCalls(), "MyThread.holdsLock and ForkJoinWorkerThread.interrupt; not super.interrupt()");
        org.objectweb.asm.tree.ClassNode node = new org.objectweb.asm.tree.ClassNode();
        new ClassReader(result.bytes()).accept(node, 0);
        for (org.objectweb.asm.tree.MethodNode m : node.methods) {
            for (org.objectweb.asm.tree.AbstractInsnNode insn : m.instructions) {
                if (insn instanceof org.objectweb.asm.tree.MethodInsnNode call && !call.name.equals("<init>")) {
                    String expected = switch (m.name) {
                        case "interrupt" -> "java/lang/Thread.interrupt";
                        case "holds" -> "org/dthreads/monitor/Monitors.holdsLock";
                        default -> "org/dthreads/monitor/Monitors.interrupt";
                    };
                    assertEquals(expected, call.owner + "." + call.name, m.name);
                }
            }
        }
        Class<?> rewritten = new RewriterShapesTest.BytesLoader(Map.of("routes/MyThread", result.bytes())).loadClass("routes.MyThread");
        Object lock = new Object();
        Monitors.enter(lock);
        try {
            assertEquals(true, rewritten.getMethod("holds", Object.class).invoke(null, lock), "before the fix: false");
        } finally {
            Monitors.exit(lock);
        }
        Thread t = (Thread) rewritten.getConstructor().newInstance();
        t.interrupt();
        assertTrue(t.isInterrupted(), "the override still reaches Thread.interrupt");
    }

    @Test
    void aSerializableMethodReferenceIsReportedAndKeptAsItIs() throws Exception {
        MonitorRewriter.Result result = MonitorRewriterTest.rewrite(SerializableRoutes.class);
        assertTrue(result.rewritten(), result.skipReason());
        assertEquals(1, result.unrewritableSites().size(), result.unrewritableSites()::toString);
        assertTrue(result.unrewritableSites().get(0).matches("notifyVia\\(Ljava/lang/Object;\\)Ljava/lang/Runnable; line \\d+: serializable method"
                + " reference to java.lang.Object.notify \\(its deserialization checks the handle\\)"),
                result.unrewritableSites()::toString);
        Class<?> rewritten = Class.forName(SerializableRoutes.class.getName(), true, new MonitorRewriterTest.RewritingLoader());
        assertEquals("deserialized", rewritten.getMethod("roundTrip").invoke(null), "serialization still works");
        assertEquals("deserialized", SerializableRoutes.roundTrip(), "control");
    }

    @Test
    void theAgentsTransformerLogsWhatItCannotRewriteOncePerClassWithTheCallSite() throws Exception {
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger(MonitorTransformer.class.getName());
        List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                lines.add(record.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        logger.addHandler(handler);
        try {
            MonitorTransformer transformer = new MonitorTransformer(name -> true);
            byte[] bytes = MonitorRewriterTest.original(SerializableRoutes.class);
            String internal = SerializableRoutes.class.getName().replace('.', '/');
            for (int i = 0; i < 3; i++) {
                assertTrue(transformer.transform(getClass().getClassLoader(), internal, null, null, bytes) != null,
                        "rewritten all the same");
            }
        } finally {
            logger.removeHandler(handler);
        }
        List<String> mine = lines.stream().filter(l -> l.contains(SerializableRoutes.class.getName())).toList();
        assertEquals(1, mine.size(), lines::toString);
        assertTrue(mine.get(0).contains("notifyVia(Ljava/lang/Object;)Ljava/lang/Runnable; line ")
                && mine.get(0).contains("serializable method reference to java.lang.Object.notify"), mine.get(0));
    }

    @Test
    void aCallWhoseOwnerCannotBeReadIsReportedAndKeptAsItIs() {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, "routes/Unknown", null, "java/lang/Object", null);
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "probe", "(Ljava/lang/Object;)Z", null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, "absent/Worker", "holdsLock", "(Ljava/lang/Object;)Z", false);
        mv.visitInsn(Opcodes.IRETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        cw.visitEnd();
        MonitorRewriter.Result result = MonitorRewriter.rewrite(cw.toByteArray(), getClass().getClassLoader());
        assertTrue(result.rewritten(), result.skipReason());
        assertEquals(List.of("probe(Ljava/lang/Object;)Z: cannot read the class file of absent.Worker"), result.unrewritableSites());
        assertEquals(0, result.monitorCalls());
    }

    private static Method method(Class<?> c, String name) {
        for (Method m : c.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new AssertionError(name);
    }

    private void verify(byte[] bytes) {
        StringWriter problems = new StringWriter();
        CheckClassAdapter.verify(new ClassReader(bytes), getClass().getClassLoader(), false, new PrintWriter(problems));
        assertEquals("", problems.toString());
    }

    /** Static methods, each given the lock, reaching a monitor method in a way javac does not emit. */
    private static byte[] crafted() {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, CRAFTED, null, "java/lang/Object", null);
        Handle notify = new Handle(Opcodes.H_INVOKEVIRTUAL, "java/lang/Object", "notify", "()V", false);
        Handle stringNotifyAll = new Handle(Opcodes.H_INVOKEVIRTUAL, "java/lang/String", "notifyAll", "()V", false);
        Handle holdsLock = new Handle(Opcodes.H_INVOKESTATIC, "java/lang/Thread", "holdsLock", "(Ljava/lang/Object;)Z", false);
        Handle invokeBootstrap = new Handle(Opcodes.H_INVOKESTATIC, "java/lang/invoke/ConstantBootstraps", "invoke",
                "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/Class;Ljava/lang/invoke/MethodHandle;"
                        + "[Ljava/lang/Object;)Ljava/lang/Object;", false);
        Handle identity = new Handle(Opcodes.H_INVOKESTATIC, "java/util/Objects", "requireNonNull",
                "(Ljava/lang/Object;)Ljava/lang/Object;", false);

        invokeExact(cw, "ldcNotify", "(Ljava/lang/Object;)V", notify);
        invokeExact(cw, "ldcNotifyAllOnString", "(Ljava/lang/String;)V", stringNotifyAll);
        invokeExact(cw, "ldcHoldsLock", "(Ljava/lang/Object;)Z", holdsLock);
        invokeExact(cw, "condyNotify", "(Ljava/lang/Object;)V",
                new ConstantDynamic("notify", "L" + MH + ";", invokeBootstrap, identity, notify));
        invokeExact(cw, "otherBootstrapStringNotify", "(Ljava/lang/String;)V",
                new ConstantDynamic("notifyAll", "L" + MH + ";", invokeBootstrap, identity, stringNotifyAll));

        MethodVisitor direct = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "stringOwnerNotifyAll",
                "(Ljava/lang/String;)V", null, null);
        direct.visitCode();
        direct.visitVarInsn(Opcodes.ALOAD, 0);
        direct.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/lang/String", "notifyAll", "()V", false);
        direct.visitInsn(Opcodes.RETURN);
        direct.visitMaxs(0, 0);
        direct.visitEnd();

        MethodVisitor viaInterface = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "interfaceNotify",
                "(Ljava/lang/CharSequence;)V", null, null);
        viaInterface.visitCode();
        viaInterface.visitVarInsn(Opcodes.ALOAD, 0);
        viaInterface.visitMethodInsn(Opcodes.INVOKEINTERFACE, "java/lang/CharSequence", "notify", "()V", true);
        viaInterface.visitInsn(Opcodes.RETURN);
        viaInterface.visitMaxs(0, 0);
        viaInterface.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** {@code static R name(A a) { return ((MethodHandle) ldc constant).invokeExact(a); }} */
    private static void invokeExact(ClassWriter cw, String name, String descriptor, Object constant) {
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, name, descriptor, null,
                new String[] {"java/lang/Throwable"});
        mv.visitCode();
        mv.visitLdcInsn(constant);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, MH, "invokeExact", descriptor, false);
        mv.visitInsn(descriptor.endsWith("Z") ? Opcodes.IRETURN : Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }
}
