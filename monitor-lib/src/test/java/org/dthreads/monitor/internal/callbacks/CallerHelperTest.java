package org.dthreads.monitor.internal.callbacks;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** {@link CallerHelper}: the platform helper a caller thread keeps, per nesting depth, until idle or orphaned. */
class CallerHelperTest {

    private static final long LONG_IDLE = TimeUnit.SECONDS.toNanos(30);

    /** Runs {@code work} on the calling thread's helper and waits for its result, as a caller's mailbox would. */
    private static Object call(Supplier<Object> work, long idleNanos) throws Throwable {
        CallbackReply reply = new CallbackReply(Thread.currentThread());
        CallerHelper.handOver(() -> reply.record(work.get(), null), reply, idleNanos);
        while (!reply.isDone()) {
            LockSupport.parkNanos(reply, TimeUnit.MILLISECONDS.toNanos(100));
        }
        return reply.outcome();
    }

    private static Thread helperOf(long idleNanos) throws Throwable {
        return (Thread) call(Thread::currentThread, idleNanos);
    }

    /** Runs {@code body} on a fresh platform caller thread (a clean helper chain) and rethrows its failure. */
    private static void onFreshCaller(ThrowingRunnable body) throws Throwable {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread caller = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "caller");
        caller.start();
        caller.join(30_000);
        assertFalse(caller.isAlive(), "the caller hung");
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    interface ThrowingRunnable {
        void run() throws Throwable;
    }

    @Test
    void aCallersCallsRunOneAfterTheOtherOnTheSameDaemonHelper() throws Throwable {
        onFreshCaller(() -> {
            Thread first = helperOf(LONG_IDLE);
            for (int i = 0; i < 100; i++) {
                assertSame(first, helperOf(LONG_IDLE), "call " + i + " ran on another helper");
            }
            assertNotSame(Thread.currentThread(), first);
            assertTrue(first.isDaemon() && first.getName().startsWith("dthreads-call-"), first::toString);
        });
    }

    @Test
    void aNestedCallGetsASecondHelperAndEachDepthKeepsItsOwn() throws Throwable {
        onFreshCaller(() -> {
            for (int round = 0; round < 3; round++) {
                CountDownLatch nestedDone = new CountDownLatch(1);
                AtomicReference<Thread> outer = new AtomicReference<>();
                CallbackReply reply = new CallbackReply(Thread.currentThread());
                CallerHelper.handOver(() -> {
                    outer.set(Thread.currentThread());
                    try {
                        nestedDone.await(10, TimeUnit.SECONDS); // the outer call is pending meanwhile
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    reply.record(null, null);
                }, reply, LONG_IDLE);
                await().atMost(Duration.ofSeconds(10)).until(() -> outer.get() != null);
                Thread nested = helperOf(LONG_IDLE); // as a callback run by this thread calling out again
                nestedDone.countDown();
                while (!reply.isDone()) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                }
                assertNotSame(outer.get(), nested, "the busy outer helper was handed a second call");
                assertSame(outer.get(), helperOf(LONG_IDLE), "depth 0 keeps its helper");
            }
        });
    }

    @Test
    void anIdleHelperRetiresAfterItsIdleTimeAndTheNextCallStartsAnother() throws Throwable {
        long idle = TimeUnit.MILLISECONDS.toNanos(50);
        onFreshCaller(() -> {
            Thread first = helperOf(idle);
            await().atMost(Duration.ofSeconds(10)).until(() -> !first.isAlive());
            Thread second = helperOf(idle);
            assertNotSame(first, second);
            assertSame(second, helperOf(LONG_IDLE), "the retired helper was replaced in the chain");
        });
    }

    @Test
    void aHelperEndsSoonAfterItsCallerAndKeepsNeitherTheCallerNorItsLoaderOrThreadLocals() throws Throwable {
        AtomicReference<Thread> helper = new AtomicReference<>();
        AtomicReference<Object> inherited = new AtomicReference<>("not read");
        AtomicReference<Object> idleLoader = new AtomicReference<>("not read");
        InheritableThreadLocal<Object> callersLocal = new InheritableThreadLocal<>();
        ClassLoader callersLoader = new ClassLoader(null) {};
        Thread caller = new Thread(() -> {
            Thread.currentThread().setContextClassLoader(callersLoader);
            callersLocal.set("caller's");
            try {
                helper.set((Thread) call(() -> {
                    inherited.set(callersLocal.get());
                    return Thread.currentThread();
                }, LONG_IDLE));
                idleLoader.set(helper.get().getContextClassLoader());
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
        }, "short-lived caller");
        caller.start();
        caller.join(10_000);
        assertNull(inherited.get(), "the helper inherited the caller's thread locals");
        assertNull(idleLoader.get(), "an idle helper holds no context class loader");
        WeakReference<Thread> callerRef = new WeakReference<>(caller);
        caller = null;
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            System.gc();
            return callerRef.get() == null;
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> !helper.get().isAlive()); // 1 s checks, not 30 s idle
    }

    @Test
    void anInterruptOfAnIdleHelperNeitherEndsItNorReachesTheNextCall() throws Throwable {
        onFreshCaller(() -> {
            Thread helper = helperOf(LONG_IDLE);
            helper.interrupt();
            await().atMost(Duration.ofSeconds(10)).until(() -> helper.getState() == Thread.State.TIMED_WAITING);
            assertEquals(Boolean.FALSE, call(() -> Thread.currentThread().isInterrupted(), LONG_IDLE));
            assertSame(helper, helperOf(LONG_IDLE));
        });
    }

    @Test
    void aThrowableEscapingTheWorkIsTheCallsOutcomeAndTheHelperGoesOn() throws Throwable {
        onFreshCaller(() -> {
            Thread helper = helperOf(LONG_IDLE);
            CallbackReply reply = new CallbackReply(Thread.currentThread());
            CallerHelper.handOver(() -> {
                throw new IllegalStateException("escaped");
            }, reply, LONG_IDLE);
            await().atMost(Duration.ofSeconds(10)).until(reply::isDone);
            try {
                reply.outcome();
                throw new AssertionError("no exception");
            } catch (IllegalStateException expected) {
                assertEquals("escaped", expected.getMessage());
            }
            assertSame(helper, helperOf(LONG_IDLE));
        });
    }
}
