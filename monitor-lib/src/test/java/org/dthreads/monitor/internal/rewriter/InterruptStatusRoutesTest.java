package org.dthreads.monitor.internal.rewriter;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.dthreads.ClassScope;
import org.dthreads.DThreads;
import org.dthreads.monitor.Monitors;
import org.dthreads.monitor.internal.rewriter.fixtures.InterruptQueries;
import org.dthreads.monitor.spi.OutgoingCalls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.util.CheckClassAdapter;

/**
 * {@code isInterrupted()} and {@code Thread.interrupted()} in rewritten code (issue 20 §2) agree with
 * {@code Monitors.interrupt}: the home thread H blocked in an outgoing call ({@link OutgoingCalls}) and a callback
 * thread bound to H's class are one logical thread, and every route of the fixture {@link InterruptQueries} reads
 * the same transcript as the single-threaded program, where the callback is a plain nested call on H.
 */
@Timeout(value = 60, unit = SECONDS)
class InterruptStatusRoutesTest {

    private static final String QUERIES = InterruptQueries.class.getName();
    private static final String COUNTING = InterruptQueries.CountingThread.class.getName();

    interface Call {
        void call(Runnable callback) throws Exception;
    }

    /** Runs {@code callback} on a new thread bound to the caller's class while the caller is suspended. */
    private static void remoteCall(Runnable callback) throws Exception {
        long cls = DThreads.currentClass();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread server = new Thread(() -> {
            try (ClassScope scope = DThreads.bind(cls)) {
                callback.run();
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "server");
        OutgoingCalls.begin();
        try {
            server.start();
            server.join(SECONDS.toMillis(30));
        } finally {
            OutgoingCalls.end();
        }
        if (failure.get() != null) {
            throw new AssertionError("callback failed", failure.get());
        }
    }

    private static void localCall(Runnable callback) {
        callback.run();
    }

    @Test
    void everyRouteIsRewrittenAndVerifies() throws Exception {
        for (Class<?> type : List.of(InterruptQueries.class, InterruptQueries.CountingThread.class)) {
            MonitorRewriter.Result result = MonitorRewriterTest.rewrite(type);
            assertTrue(result.rewritten(), result.skipReason());
            assertEquals(List.of(), result.unrewritableSites());
            StringWriter problems = new StringWriter();
            CheckClassAdapter.verify(new ClassReader(result.bytes()), getClass().getClassLoader(), false,
                    new PrintWriter(problems));
            assertEquals("", problems.toString(), type.getName());
            assertEquals(type == InterruptQueries.class ? List.of() : List.of("isInterrupted: invokespecial java/lang/Thread.isInterrupted"),
                    threadStatusCalls(result.bytes()), "only super.isInterrupted() in the override is kept");
        }
        Class.forName(QUERIES, true, new MonitorRewriterTest.RewritingLoader()); // links: the JVM verifier runs
        Class.forName(COUNTING, true, new MonitorRewriterTest.RewritingLoader());
    }

    @Test
    void isInterruptedReadsTrueWhileTheKeptInterruptIsPendingByEveryRoute() throws Exception {
        Class<?> queries = Class.forName(QUERIES, true, new MonitorRewriterTest.RewritingLoader());
        List<String> single = onCountingThread(queries, home -> readWhileKept(queries, home, InterruptStatusRoutesTest::localCall));
        List<String> multi = onCountingThread(queries, home -> readWhileKept(queries, home, InterruptStatusRoutesTest::remoteCall));
        List<String> expected = new ArrayList<>();
        for (String route : InterruptQueries.IS_INTERRUPTED_ROUTES) {
            expected.add(route + " true");
        }
        expected.addAll(List.of("current true", "override ran true", "home back, interrupted=true"));
        assertEquals(expected, single);
        assertEquals(single, multi, "before issue 20 §2: every read false while the interrupt was kept for the class");
    }

    @Test
    void interruptedTakesTheKeptInterruptOnceAndTheLaterWaitDoesNotThrow() throws Exception {
        Class<?> queries = Class.forName(QUERIES, true, new MonitorRewriterTest.RewritingLoader());
        for (String route : InterruptQueries.INTERRUPTED_ROUTES) {
            List<String> single = consume(queries, route, InterruptStatusRoutesTest::localCall);
            List<String> multi = consume(queries, route, InterruptStatusRoutesTest::remoteCall);
            assertEquals(List.of(route + " true", "again false", "home isInterrupted false", "wait timed out",
                    "home back, interrupted=false"), single, route);
            assertEquals(single, multi, route);
        }
    }

    @Test
    void methodHandleConstantsReadAndTakeTheKeptInterrupt() throws Exception {
        MonitorRewriter.Result result = MonitorRewriter.rewrite(crafted(), getClass().getClassLoader());
        assertTrue(result.rewritten(), result.skipReason());
        assertEquals(List.of(), result.unrewritableSites());
        assertEquals(3, result.monitorCalls());
        StringWriter problems = new StringWriter();
        CheckClassAdapter.verify(new ClassReader(result.bytes()), getClass().getClassLoader(), false, new PrintWriter(problems));
        assertEquals("", problems.toString());
        Class<?> handles = new RewriterShapesTest.BytesLoader(java.util.Map.of(CRAFTED, result.bytes()))
                .loadClass(CRAFTED.replace('/', '.'));
        for (Call call : List.<Call>of(InterruptStatusRoutesTest::localCall, InterruptStatusRoutesTest::remoteCall)) {
            Thread home = Thread.currentThread();
            Thread other = new InterruptQueries.CountingThread(() -> { });
            List<String> log = new CopyOnWriteArrayList<>();
            call.call(() -> {
                Monitors.interrupt(home);
                log.add("ldc isInterrupted " + invoke(handles, "ldcIsInterrupted", home));
                log.add("ldc interrupted " + invoke(handles, "ldcInterrupted") + "," + invoke(handles, "ldcInterrupted"));
                log.add("ldc on a subclass " + invoke(handles, "ldcIsInterruptedOfSubclass", other));
            });
            log.add("home back, interrupted=" + Thread.interrupted());
            assertEquals(List.of("ldc isInterrupted true", "ldc interrupted true,false", "ldc on a subclass false",
                    "home back, interrupted=false"), log);
        }
    }

    private static final String CRAFTED = "routes/StatusHandles";

    /** {@code ldc} of {@code Thread.isInterrupted}, {@code Thread.interrupted} and a subclass's {@code isInterrupted} handle. */
    private static byte[] crafted() {
        org.objectweb.asm.ClassWriter cw = new org.objectweb.asm.ClassWriter(org.objectweb.asm.ClassWriter.COMPUTE_MAXS);
        cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, CRAFTED, null, "java/lang/Object", null);
        String sub = InterruptQueries.CountingThread.class.getName().replace('.', '/');
        ldcInvoke(cw, "ldcIsInterrupted", "(Ljava/lang/Thread;)Z",
                new Handle(Opcodes.H_INVOKEVIRTUAL, "java/lang/Thread", "isInterrupted", "()Z", false));
        ldcInvoke(cw, "ldcInterrupted", "()Z", new Handle(Opcodes.H_INVOKESTATIC, "java/lang/Thread", "interrupted", "()Z", false));
        ldcInvoke(cw, "ldcIsInterruptedOfSubclass", "(L" + sub + ";)Z",
                new Handle(Opcodes.H_INVOKEVIRTUAL, sub, "isInterrupted", "()Z", false));
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** {@code static boolean name(..) { return ((MethodHandle) ldc h).invokeExact(..); }} */
    private static void ldcInvoke(org.objectweb.asm.ClassWriter cw, String name, String descriptor, Handle h) {
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, name, descriptor, null,
                new String[] {"java/lang/Throwable"});
        mv.visitCode();
        mv.visitLdcInsn(h);
        if (!descriptor.startsWith("()")) {
            mv.visitVarInsn(Opcodes.ALOAD, 0);
        }
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/lang/invoke/MethodHandle", "invokeExact", descriptor, false);
        mv.visitInsn(Opcodes.IRETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    /** Interrupts the suspended home thread, then reads its status by every route without clearing it. */
    private static List<String> readWhileKept(Class<?> queries, Thread home, Call call) throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        call.call(() -> {
            Monitors.interrupt(home);
            AtomicInteger asked = askedOf(home);
            int before = asked.get();
            for (String route : InterruptQueries.IS_INTERRUPTED_ROUTES) {
                log.add(route + " " + invoke(queries, "isInterrupted", route, home));
            }
            log.add("current " + invoke(queries, "currentIsInterrupted"));
            log.add("override ran " + (asked.get() - before >= InterruptQueries.IS_INTERRUPTED_ROUTES.size()));
        });
        log.add("home back, interrupted=" + Thread.interrupted());
        return log;
    }

    /** Interrupts the suspended home thread; the callback takes the interrupt by {@code route}, then waits. */
    private static List<String> consume(Class<?> queries, String route, Call call) throws Exception {
        Thread home = Thread.currentThread();
        Object lock = new Object();
        List<String> log = new CopyOnWriteArrayList<>();
        call.call(() -> {
            Monitors.interrupt(home);
            log.add(route + " " + invoke(queries, "interrupted", route));
            log.add("again " + invoke(queries, "interrupted", "call"));
            log.add("home isInterrupted " + invoke(queries, "isInterrupted", "call", home));
            log.add((String) invoke(queries, "waitBriefly", lock));
        });
        log.add("home back, interrupted=" + Thread.interrupted());
        return log;
    }

    interface HomeProgram {
        List<String> run(Thread home) throws Exception;
    }

    /** Runs {@code program} on a rewritten {@code CountingThread}, whose {@code isInterrupted} override counts. */
    private static List<String> onCountingThread(Class<?> queries, HomeProgram program) throws Exception {
        AtomicReference<Object> outcome = new AtomicReference<>();
        Class<?> counting = Class.forName(COUNTING, true, queries.getClassLoader());
        Thread[] self = new Thread[1];
        self[0] = (Thread) counting.getConstructor(Runnable.class).newInstance((Runnable) () -> {
            try {
                outcome.set(program.run(self[0]));
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        self[0].start();
        self[0].join(SECONDS.toMillis(30));
        if (outcome.get() instanceof Throwable t) {
            throw new AssertionError("home program failed", t);
        }
        @SuppressWarnings("unchecked")
        List<String> log = (List<String>) outcome.get();
        return log;
    }

    private static AtomicInteger askedOf(Thread home) {
        try {
            return (AtomicInteger) home.getClass().getField("asked").get(home);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static Object invoke(Class<?> queries, String name, Object... args) {
        for (Method m : queries.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == args.length) {
                try {
                    return m.invoke(null, args);
                } catch (InvocationTargetException e) {
                    throw new AssertionError(name + " threw", e.getCause());
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
        throw new AssertionError(name);
    }

    /** Calls left in the rewritten class that reach {@code Thread.isInterrupted} or {@code Thread.interrupted}. */
    private static List<String> threadStatusCalls(byte[] bytes) {
        ClassNode node = new ClassNode();
        new ClassReader(bytes).accept(node, 0);
        List<String> calls = new ArrayList<>();
        for (MethodNode m : node.methods) {
            for (AbstractInsnNode insn : m.instructions) {
                if (insn instanceof MethodInsnNode call && (call.name.equals("isInterrupted") || call.name.equals("interrupted"))
                        && !call.owner.equals("org/dthreads/monitor/Monitors")) {
                    calls.add(m.name + ": " + (call.getOpcode() == org.objectweb.asm.Opcodes.INVOKESPECIAL ? "invokespecial "
                            : "invoke ") + call.owner + "." + call.name);
                }
            }
        }
        return calls;
    }
}
