package org.dthreads.monitor.internal.callbacks;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@link CallerHelper}: platform helpers shared by all callers through one stack of idle ones (here a stack per test,
 * so that counts are this test's): one per call in flight at the peak, the most recently idle reused first.
 */
class CallerHelperTest {

    private static final long LONG_IDLE = TimeUnit.SECONDS.toNanos(30);

    private final Deque<CallerHelper> idle = new ConcurrentLinkedDeque<>();

    /** Runs {@code work} on a helper from {@link #idle} and waits for its result, as a caller's mailbox would. */
    private Object call(Supplier<Object> work, long idleNanos) throws Throwable {
        CallbackReply reply = new CallbackReply(Thread.currentThread());
        CallerHelper.handOver(idle, () -> reply.record(work.get(), null), reply, idleNanos);
        while (!reply.isDone()) {
            LockSupport.parkNanos(reply, TimeUnit.MILLISECONDS.toNanos(100));
        }
        return reply.outcome();
    }

    private Thread helperOf(long idleNanos) throws Throwable {
        return (Thread) call(Thread::currentThread, idleNanos);
    }

    /** Runs {@code body} on a fresh platform caller thread and rethrows its failure. */
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
    void callsOneAfterTheOtherRunOnTheSameDaemonHelper() throws Throwable {
        Thread first = helperOf(LONG_IDLE);
        for (int i = 0; i < 100; i++) {
            assertSame(first, helperOf(LONG_IDLE), "call " + i + " ran on another helper");
        }
        assertNotSame(Thread.currentThread(), first);
        assertTrue(first.isDaemon() && first.getName().startsWith("dthreads-call-"), first::toString);
        assertEquals(List.of(first), idleThreads(), "the idle helper is back on the stack, once");
    }

    @Test
    void anIdleHelperIsReusedByAnotherCaller() throws Throwable {
        AtomicReference<Thread> first = new AtomicReference<>();
        onFreshCaller(() -> first.set(helperOf(LONG_IDLE)));
        onFreshCaller(() -> assertSame(first.get(), helperOf(LONG_IDLE), "a second caller started another helper"));
        assertTrue(first.get().isAlive());
    }

    @Test
    void nSequentialCallersLeaveOneHelper() throws Throwable {
        Set<Thread> helpers = ConcurrentHashMap.newKeySet();
        for (int n = 0; n < 20; n++) {
            onFreshCaller(() -> {
                for (int i = 0; i < 5; i++) {
                    helpers.add(helperOf(LONG_IDLE));
                }
            });
        }
        assertEquals(1, helpers.size(), helpers::toString);
        assertEquals(List.copyOf(helpers), idleThreads());
    }

    @Test
    void kConcurrentCallersUseExactlyKHelpersWhenAllAreInFlightAndAtMostKOtherwise() throws Throwable {
        int k = 6;
        Set<Thread> helpers = ConcurrentHashMap.newKeySet();
        CyclicBarrier allInFlight = new CyclicBarrier(k);
        for (int round = 0; round < 5; round++) {
            concurrently(k, () -> helpers.add((Thread) call(() -> {
                try {
                    allInFlight.await(10, TimeUnit.SECONDS); // all k calls are running at once
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                return Thread.currentThread();
            }, LONG_IDLE)));
            assertEquals(k, helpers.size(), "round " + round + ": " + helpers);
            assertEquals(k, idle.size(), "every helper idle on the stack again");
        }
        for (int round = 0; round < 5; round++) { // calls not held in flight: fewer at once, never more helpers
            concurrently(k, () -> {
                for (int i = 0; i < 20; i++) {
                    helpers.add(helperOf(LONG_IDLE));
                }
            });
        }
        assertEquals(k, helpers.size(), helpers::toString);
        assertEquals(k, idle.size());
    }

    private static void concurrently(int callers, ThrowingRunnable body) throws Throwable {
        List<Thread> threads = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < callers; i++) {
            threads.add(new Thread(() -> {
                try {
                    body.run();
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }, "caller-" + i));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join(30_000);
            assertFalse(t.isAlive(), "a caller hung");
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    @Test
    void theMostRecentlyIdleHelperIsReusedFirst() throws Throwable {
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Thread> heldLonger = new AtomicReference<>();
        CallbackReply reply = new CallbackReply(Thread.currentThread());
        CallerHelper.handOver(idle, () -> {
            heldLonger.set(Thread.currentThread());
            awaitQuietly(release);
            reply.record(null, null);
        }, reply, LONG_IDLE);
        await().atMost(Duration.ofSeconds(10)).until(() -> heldLonger.get() != null);
        Thread quick = helperOf(LONG_IDLE); // a second helper: the first is busy
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(reply::isDone); // the first idle now, after the second
        assertNotSame(heldLonger.get(), quick);
        assertEquals(List.of(heldLonger.get(), quick), idleThreads());
        assertSame(heldLonger.get(), helperOf(LONG_IDLE));
    }

    @Test
    void aNestedCallGetsASecondHelperNeverTheBusyOne() throws Throwable {
        onFreshCaller(() -> {
            for (int round = 0; round < 3; round++) {
                CountDownLatch nestedDone = new CountDownLatch(1);
                AtomicReference<Thread> outer = new AtomicReference<>();
                CallbackReply reply = new CallbackReply(Thread.currentThread());
                CallerHelper.handOver(idle, () -> {
                    outer.set(Thread.currentThread());
                    awaitQuietly(nestedDone); // the outer call is pending meanwhile
                    reply.record(null, null);
                }, reply, LONG_IDLE);
                await().atMost(Duration.ofSeconds(10)).until(() -> outer.get() != null);
                Thread nested = helperOf(LONG_IDLE); // as a callback run by this thread calling out again
                nestedDone.countDown();
                while (!reply.isDone()) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                }
                assertNotSame(outer.get(), nested, "the busy outer helper was handed a second call");
                assertEquals(2, idle.size(), "two helpers, both idle again");
            }
        });
    }

    @Test
    void anIdleHelperRetiresAfterItsIdleTimeLeavesTheStackAndTheNextCallStartsAnother() throws Throwable {
        long shortIdle = TimeUnit.MILLISECONDS.toNanos(50);
        Thread first = helperOf(shortIdle);
        await().atMost(Duration.ofSeconds(10)).until(() -> !first.isAlive());
        assertEquals(0, idle.size(), "the retired helper is still on the stack");
        Thread second = helperOf(LONG_IDLE);
        assertNotSame(first, second);
        assertSame(second, helperOf(LONG_IDLE));
    }

    @Test
    void aRetiredHelperStillOnTheStackIsSkippedForTheNextIdleOne() throws Throwable {
        Thread live = helperOf(LONG_IDLE);
        CallerHelper retired = new CallerHelper(idle, 0);
        assertFalse(retired.awaitCall(), "no call, no idle time: it retires");
        idle.offerFirst(retired); // as if popped between its retirement and its removal
        assertSame(live, helperOf(LONG_IDLE));
        assertEquals(List.of(live), idleThreads(), "the retired helper was dropped");
    }

    @Test
    void aFinishedCallerAndItsLoaderAreNotKeptByTheIdleHelper() throws Throwable {
        AtomicReference<Thread> helper = new AtomicReference<>();
        AtomicReference<Object> inherited = new AtomicReference<>("not read");
        AtomicReference<Object> idleLoader = new AtomicReference<>("not read");
        AtomicReference<WeakReference<ClassLoader>> loaderRef = new AtomicReference<>();
        InheritableThreadLocal<Object> callersLocal = new InheritableThreadLocal<>();
        Thread caller = new Thread(() -> {
            ClassLoader callersLoader = new ClassLoader(null) {};
            loaderRef.set(new WeakReference<>(callersLoader));
            Thread.currentThread().setContextClassLoader(callersLoader);
            callersLocal.set("caller's");
            try {
                helper.set((Thread) call(() -> { // the work holds the caller's loader, its reply the caller
                    inherited.set(callersLocal.get());
                    return callersLoader.getParent() == null ? Thread.currentThread() : null;
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
            return callerRef.get() == null && loaderRef.get().get() == null;
        });
        assertTrue(helper.get().isAlive(), "collected while the helper lives on, idle");
        assertEquals(List.of(helper.get()), idleThreads());
    }

    @Test
    void anInterruptOfAnIdleHelperNeitherEndsItNorReachesTheNextCall() throws Throwable {
        Thread helper = helperOf(LONG_IDLE);
        helper.interrupt();
        await().atMost(Duration.ofSeconds(10)).until(() -> helper.getState() == Thread.State.TIMED_WAITING);
        assertEquals(Boolean.FALSE, call(() -> Thread.currentThread().isInterrupted(), LONG_IDLE));
        assertSame(helper, helperOf(LONG_IDLE));
    }

    @Test
    void aThrowableEscapingTheWorkIsTheCallsOutcomeAndTheHelperGoesOn() throws Throwable {
        Thread helper = helperOf(LONG_IDLE);
        CallbackReply reply = new CallbackReply(Thread.currentThread());
        CallerHelper.handOver(idle, () -> {
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
    }

    /**
     * The threads of the idle helpers on the stack, top first (read from their {@code waiter}, which a helper sets
     * just after it pushed itself: waited for). A call would take one off the stack, so none is made.
     */
    private List<Thread> idleThreads() throws Exception {
        Field waiter = CallerHelper.class.getDeclaredField("waiter");
        waiter.setAccessible(true);
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            for (CallerHelper h : idle) {
                if (waiter.get(h) == null) {
                    return false;
                }
            }
            return true;
        });
        List<Thread> threads = new ArrayList<>();
        for (CallerHelper h : idle) {
            threads.add((Thread) waiter.get(h));
        }
        return threads;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
