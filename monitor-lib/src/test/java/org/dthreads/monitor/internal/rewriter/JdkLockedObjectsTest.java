package org.dthreads.monitor.internal.rewriter;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.channels.Pipe;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.dthreads.ClassScope;
import org.dthreads.DThreads;
import org.dthreads.monitor.Monitors;
import org.dthreads.monitor.spi.OutgoingCalls;
import org.dthreads.monitor.internal.rewriter.fixtures.JdkLockedObjects;
import org.dthreads.monitor.internal.rewriter.fixtures.OrdinaryLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 21: application code that holds an object JDK code also locks (each case of the JDK inventory,
 * {@code JdkLockInventoryTest}) must exclude that JDK code the same way plainly and rewritten. The probe:
 * a holder thread runs the fixture's {@code synchronized} block (plain or rewritten) and waits inside; a
 * second thread runs the JDK method that locks the same object. Excluded means the JDK thread is
 * {@code BLOCKED} on a monitor whose owner is the holder ({@link ThreadInfo#getLockOwnerId()}); not
 * excluded means it finished while the block was held. Without the native marks every rewritten case
 * but the serial class loader (its lock is the loader, native by class) reads "not excluded".
 *
 * <p>Also: an ordinary {@code private final Object lock} stays emulated, and a zigzag through it completes.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class JdkLockedObjectsTest {

    private static final String FIXTURE = JdkLockedObjects.class.getName();

    interface Holder {
        void hold(CountDownLatch holding, CountDownLatch release) throws Exception;
    }

    interface JdkAction {
        void run() throws Exception;
    }

    /** "excluded" or "not excluded", as described in the class comment. */
    static String probe(Holder holder, JdkAction jdk) throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread holderThread = new Thread(() -> {
            try {
                holder.hold(holding, release);
            } catch (Throwable t) {
                failure.set(t);
                holding.countDown();
            }
        }, "holder");
        holderThread.start();
        assertTrue(holding.await(30, TimeUnit.SECONDS));
        Thread jdkThread = new Thread(() -> {
            try {
                jdk.run();
            } catch (Throwable t) {
                if (!(t instanceof ClassNotFoundException)) {
                    failure.compareAndSet(null, t);
                }
            }
        }, "jdk");
        jdkThread.start();
        try {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(2))
                    .until(() -> !jdkThread.isAlive() || blockedBy(jdkThread, holderThread));
            return jdkThread.isAlive() ? "excluded" : "not excluded";
        } finally {
            release.countDown();
            holderThread.join(30_000);
            jdkThread.join(30_000);
            if (failure.get() != null) {
                throw new AssertionError("probe failed", failure.get());
            }
        }
    }

    private static boolean blockedBy(Thread waiter, Thread owner) {
        ThreadInfo info = ManagementFactory.getThreadMXBean().getThreadInfo(waiter.getId());
        return info != null && info.getThreadState() == Thread.State.BLOCKED && info.getLockOwnerId() == owner.getId();
    }

    /** The fixture class {@code simpleName} (a nested class of JdkLockedObjects, or itself), plain or rewritten. */
    static Class<?> fixture(String nested, boolean rewritten) throws ClassNotFoundException {
        String name = nested.isEmpty() ? FIXTURE : FIXTURE + "$" + nested;
        return rewritten ? Class.forName(name, true, new MonitorRewriterTest.RewritingLoader()) : Class.forName(name);
    }

    static Object call(Class<?> c, Object target, String method, Object... args) throws Exception {
        for (Method m : c.getMethods()) {
            if (m.getName().equals(method) && m.getParameterCount() == args.length) {
                try {
                    return m.invoke(target, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause() instanceof Exception ex ? ex : new RuntimeException(e.getCause());
                }
            }
        }
        throw new NoSuchMethodException(method);
    }

    private static String classLoaderProbe(String loaderClass, String holdMethod, boolean rewritten) throws Exception {
        ClassLoader loader = (ClassLoader) fixture(loaderClass, rewritten).getConstructor().newInstance();
        return probe((holding, release) -> call(loader.getClass(), loader, holdMethod, "x.Target", holding, release),
                () -> loader.loadClass("x.Target"));
    }

    @ParameterizedTest(name = "rewritten={0}")
    @ValueSource(booleans = {false, true})
    void parallelCapableClassLoadingLockExcludesLoadClass(boolean rewritten) throws Exception {
        assertEquals("excluded", classLoaderProbe("ParallelLoader", "holdClassLoadingLock", rewritten));
    }

    @ParameterizedTest(name = "rewritten={0}")
    @ValueSource(booleans = {false, true})
    void serialClassLoadingLockExcludesLoadClass(boolean rewritten) throws Exception {
        assertEquals("excluded", classLoaderProbe("SerialLoader", "holdClassLoadingLock", rewritten));
    }

    @ParameterizedTest(name = "rewritten={0}")
    @ValueSource(booleans = {false, true})
    void overriddenClassLoadingLockExcludesLoadClass(boolean rewritten) throws Exception {
        assertEquals("excluded", classLoaderProbe("OwnLocksLoader", "holdOwnLock", rewritten));
    }

    @ParameterizedTest(name = "rewritten={0}")
    @ValueSource(booleans = {false, true})
    void writerOnTheApplicationsLockExcludesWrite(boolean rewritten) throws Exception {
        Object lock = new Object();
        java.io.Writer writer = (java.io.Writer) fixture("LockWriter", rewritten).getConstructor(Object.class).newInstance(lock);
        Class<?> fixture = fixture("", rewritten);
        assertEquals("excluded", probe((holding, release) -> call(fixture, null, "hold", lock, holding, release),
                () -> writer.write("abc", 0, 3)));
    }

    @ParameterizedTest(name = "rewritten={0} {1}")
    @org.junit.jupiter.params.provider.CsvSource({"false,LockReader", "true,LockReader", "false,SuperLockReader",
            "true,SuperLockReader"})
    void readerOnTheApplicationsLockExcludesSkip(boolean rewritten, String readerClass) throws Exception {
        Object lock = new Object();
        java.io.Reader reader = (java.io.Reader) fixture(readerClass, rewritten).getConstructor(Object.class).newInstance(lock);
        Class<?> fixture = fixture("", rewritten);
        assertEquals("excluded", probe((holding, release) -> call(fixture, null, "hold", lock, holding, release),
                () -> reader.skip(5)));
    }

    @ParameterizedTest(name = "rewritten={0}")
    @ValueSource(booleans = {false, true})
    void channelBlockingLockExcludesConfigureBlocking(boolean rewritten) throws Exception {
        Pipe pipe = Pipe.open();
        try {
            Class<?> fixture = fixture("", rewritten);
            assertEquals("excluded", probe((holding, release) -> call(fixture, null, "holdBlockingLock", pipe.sink(),
                    holding, release), () -> pipe.sink().configureBlocking(false)));
        } finally {
            pipe.sink().close();
            pipe.source().close();
        }
    }

    @ParameterizedTest(name = "rewritten={0}")
    @ValueSource(booleans = {false, true})
    void invocationEventNotifierExcludesDispatch(boolean rewritten) throws Exception {
        Object notifier = new Object();
        Class<?> fixture = fixture("", rewritten);
        java.awt.event.InvocationEvent event = (java.awt.event.InvocationEvent) call(fixture, null, "invocationEvent", notifier);
        assertEquals("excluded", probe((holding, release) -> call(fixture, null, "hold", notifier, holding, release),
                event::dispatch));
    }

    @ParameterizedTest(name = "rewritten={0}")
    @ValueSource(booleans = {false, true})
    void globalHierarchyLockExcludesBeanContextSupport(boolean rewritten) throws Exception {
        Class<?> fixture = fixture("", rewritten);
        assertEquals("excluded", probe((holding, release) -> call(fixture, null, "holdGlobalHierarchyLock", holding, release),
                () -> new java.beans.beancontext.BeanContextSupport().add(new java.beans.beancontext.BeanContextChildSupport())));
    }

    /** Every fixture class passes ASM's verifier with the marks in; the JVM verifier runs when the probes load them. */
    @ParameterizedTest(name = "[{0}]")
    @ValueSource(strings = {"", "ParallelLoader", "SerialLoader", "OwnLocksLoader", "LockWriter", "LockReader",
            "SuperLockReader"})
    void markedClassesPassTheAsmVerifier(String nested) throws Exception {
        Class<?> plain = fixture(nested, false);
        MonitorRewriter.Result result = MonitorRewriterTest.rewrite(plain);
        assertTrue(result.rewritten(), () -> "skipped: " + result.skipReason());
        java.io.StringWriter problems = new java.io.StringWriter();
        org.objectweb.asm.util.CheckClassAdapter.verify(new org.objectweb.asm.ClassReader(result.bytes()),
                getClass().getClassLoader(), false, new java.io.PrintWriter(problems));
        assertEquals("", problems.toString());
        assertTrue(new String(result.bytes(), java.nio.charset.StandardCharsets.ISO_8859_1)
                .contains("keepNative"), "the marking call is in the class");
    }

    /**
     * After marks exist, an ordinary private lock (a field even named {@code lock}, stored in the constructor)
     * is still emulated, and a zigzag through it completes: the callback, on another thread of the holder's
     * class, re-enters it while the holder is in its "remote call". A native lock would block the callback.
     */
    @Test
    void anOrdinaryPrivateLockStaysEmulatedAndAZigzagThroughItCompletes() throws Exception {
        ClassLoader loader = new MonitorRewriterTest.RewritingLoader();
        Object parallelLoader = Class.forName(FIXTURE + "$ParallelLoader", true, loader).getConstructor().newInstance();
        assertEquals("excluded", probe((holding, release) -> call(parallelLoader.getClass(), parallelLoader,
                "holdClassLoadingLock", "x.Other", holding, release), () -> ((ClassLoader) parallelLoader).loadClass("x.Other")));

        Class<?> ordinary = Class.forName(OrdinaryLock.class.getName(), true, loader);
        Object instance = ordinary.getConstructor().newInstance();
        assertTrue(Monitors.isEmulated(call(ordinary, instance, "lock")), "an ordinary lock is emulated");
        Runnable remoteCall = () -> remoteCall(() -> {
            try {
                call(ordinary, instance, "increment");
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        assertEquals(2, call(ordinary, instance, "zigzag", remoteCall));
    }

    /** Runs {@code callback} on a new thread bound to the caller's class while the caller is suspended. */
    private static void remoteCall(Runnable callback) {
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
            server.join(30_000);
            assertFalse(server.isAlive(), "the callback did not get the lock: the zigzag deadlocked");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        } finally {
            OutgoingCalls.end();
        }
        if (failure.get() != null) {
            throw new AssertionError("callback failed", failure.get());
        }
    }
}
