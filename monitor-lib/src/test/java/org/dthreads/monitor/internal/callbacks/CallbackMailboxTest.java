package org.dthreads.monitor.internal.callbacks;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The edges of {@code -Ddthreads.callbacks=original} on one JVM, without RMI: a thread waiting for its reply on
 * its {@link CallbackMailbox} ("the original thread") runs the {@link CallbackInvocation}s handed to it.
 */
class CallbackMailboxTest {

    private static final AtomicLong NEXT_CLASS = new AtomicLong(0x1000);
    private final long threadClass = ThreadClass.of(0x7e57, (int) NEXT_CLASS.incrementAndGet());
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final CallbackReply[] reply = new CallbackReply[1];
    private Thread original;

    /** Starts the original thread: opens its mailbox, waits for its reply running callbacks, records its end. */
    private void startOriginal() {
        CountDownLatch opened = new CountDownLatch(1);
        original = new Thread(() -> {
            CallbackMailbox box = CallbackMailbox.open(threadClass);
            reply[0] = new CallbackReply(Thread.currentThread());
            opened.countDown();
            try {
                box.await(reply[0]);
                events.add("returned interrupted=" + Thread.currentThread().isInterrupted());
            } finally {
                box.close();
            }
        }, "original");
        original.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> opened.getCount() == 0);
    }

    private CallbackInvocation invocation(Supplier<Object> body) {
        return new CallbackInvocation(threadClass, body::get, Thread.currentThread());
    }

    private CallbackMailbox box() {
        return CallbackMailbox.waitingFor(threadClass);
    }

    @AfterEach
    void originalEnded() throws InterruptedException {
        if (original != null) {
            if (reply[0] != null && !reply[0].isDone()) {
                reply[0].complete(null, null);
            }
            original.join(5000);
            assertFalse(original.isAlive(), "the original thread ended");
        }
    }

    @Test
    void aCallbackRunsOnTheOriginalThreadBoundToItsClassAndHandsBackItsResult() throws Throwable {
        startOriginal();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        AtomicLong boundClass = new AtomicLong();
        CallbackInvocation call = invocation(() -> {
            ranOn.set(Thread.currentThread());
            boundClass.set(DThreads.currentClass());
            return "result";
        });
        assertTrue(box().offer(call));
        assertTrue(call.awaitRunner(TimeUnit.SECONDS.toNanos(10)));
        assertEquals("result", call.outcome());
        assertSame(original, ranOn.get());
        assertEquals(threadClass, boundClass.get());
    }

    @Test
    void aCallbacksExceptionIsThrownAtTheServer() throws Throwable {
        startOriginal();
        CallbackInvocation call = invocation(() -> {
            throw new IllegalStateException("from the callback");
        });
        assertTrue(box().offer(call));
        assertTrue(call.awaitRunner(TimeUnit.SECONDS.toNanos(10)));
        try {
            call.outcome();
            throw new AssertionError("no exception");
        } catch (IllegalStateException expected) {
            assertEquals("from the callback", expected.getMessage());
        }
    }

    @Test
    void theOwnReplyArrivingDuringACallbackWaitsUntilTheCallbackEnds() throws Throwable {
        startOriginal();
        CallbackInvocation call = invocation(() -> {
            events.add("callback starts");
            reply[0].complete("own reply", null); // the reply arrives now, while the callback runs
            events.add("callback ends");
            return null;
        });
        assertTrue(box().offer(call));
        assertTrue(call.awaitRunner(TimeUnit.SECONDS.toNanos(10)));
        original.join(5000);
        assertEquals(List.of("callback starts", "callback ends", "returned interrupted=false"), events);
        assertNull(CallbackMailbox.waitingFor(threadClass), "closed once the call returned");
    }

    @Test
    void callbacksOfOneClassQueueAndRunOneAtATimeInOrder() throws Throwable {
        startOriginal();
        CountDownLatch othersQueued = new CountDownLatch(1);
        CallbackInvocation first = invocation(() -> {
            events.add("1 starts");
            try {
                othersQueued.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            events.add("1 ends");
            return null;
        });
        assertTrue(box().offer(first));
        await().atMost(Duration.ofSeconds(5)).until(() -> events.contains("1 starts"));
        CallbackInvocation second = invocation(() -> events.add("2 on " + Thread.currentThread().getName()));
        CallbackInvocation third = invocation(() -> events.add("3 on " + Thread.currentThread().getName()));
        assertTrue(box().offer(second));
        assertTrue(box().offer(third));
        othersQueued.countDown();
        for (CallbackInvocation c : List.of(first, second, third)) {
            assertTrue(c.awaitRunner(TimeUnit.SECONDS.toNanos(10)));
        }
        assertEquals(List.of("1 starts", "1 ends", "2 on original", "3 on original"), events);
    }

    @Test
    void aCallbackNotStartedWithinTheQueueBoundIsServedByItsServerAndSkippedByTheOriginal() throws Throwable {
        startOriginal();
        CountDownLatch release = new CountDownLatch(1);
        CallbackInvocation busy = invocation(() -> {
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return null;
        });
        assertTrue(box().offer(busy));
        CallbackInvocation late = invocation(() -> events.add("late ran on the original"));
        assertTrue(box().offer(late));
        assertFalse(late.awaitRunner(TimeUnit.MILLISECONDS.toNanos(50)), "taken back: the server serves it");
        release.countDown();
        assertTrue(busy.awaitRunner(TimeUnit.SECONDS.toNanos(10)));
        reply[0].complete(null, null);
        original.join(5000);
        assertFalse(events.contains("late ran on the original"), events::toString);
    }

    @Test
    void afterTheOriginalStopsWaitingAnOfferIsRefusedAndQueuedCallbacksGoBack() throws Throwable {
        startOriginal();
        CallbackMailbox box = box();
        reply[0].complete("own reply", null);
        original.join(5000);
        CallbackInvocation orphan = invocation(() -> "never");
        assertFalse(box.offer(orphan), "the orphan rule: the server serves it in take-over mode");
        assertNull(CallbackMailbox.waitingFor(threadClass));
    }

    @Test
    void anInterruptWhileWaitingIsPendingSeenByTheNextCallbackAndKeptAfterTheReply() throws Throwable {
        startOriginal();
        original.interrupt();
        await().atMost(Duration.ofSeconds(5)).until(() -> original.getState() == Thread.State.WAITING);
        assertTrue(original.isAlive(), "an interrupt does not end the wait for the reply");
        CallbackInvocation call = invocation(() -> events.add("callback interrupted=" + Thread.currentThread().isInterrupted()));
        assertTrue(box().offer(call));
        assertTrue(call.awaitRunner(TimeUnit.SECONDS.toNanos(10)));
        reply[0].complete(null, null);
        original.join(5000);
        assertEquals(List.of("callback interrupted=true", "returned interrupted=true"), events);
    }

    @Test
    void onlyTheFirstThreadOfAClassTakesItsCallbacks() throws Throwable {
        startOriginal();
        AtomicReference<Object> second = new AtomicReference<>("not run");
        Thread other = new Thread(() -> second.set(CallbackMailbox.open(threadClass)));
        other.start();
        other.join(5000);
        assertNull(second.get());
        assertSame(original, box().owner());
    }

    @Test
    void underRacingServersWithTinyQueueBoundsEveryInvocationRunsExactlyOnce() throws Throwable {
        startOriginal();
        int servers = 3;
        int perServer = 2000;
        java.util.concurrent.atomic.AtomicInteger byOriginal = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger byServer = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger twice = new java.util.concurrent.atomic.AtomicInteger();
        List<Thread> threads = new java.util.ArrayList<>();
        for (int s = 0; s < servers; s++) {
            long seed = s;
            threads.add(new Thread(() -> {
                java.util.Random random = new java.util.Random(seed);
                for (int i = 0; i < perServer; i++) {
                    java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
                    CallbackInvocation call = new CallbackInvocation(threadClass, () -> {
                        runs.incrementAndGet();
                        byOriginal.incrementAndGet();
                        return null;
                    }, Thread.currentThread());
                    if (!box().offer(call) || !call.awaitRunner(random.nextInt(20_000))) {
                        runs.incrementAndGet(); // the server serves it itself
                        byServer.incrementAndGet();
                    }
                    if (runs.get() != 1) {
                        twice.incrementAndGet();
                    }
                }
            }, "server-" + s));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join(60_000);
            assertFalse(t.isAlive(), "a server hung");
        }
        assertEquals(0, twice.get(), "an invocation ran twice or not at all");
        assertEquals(servers * perServer, byOriginal.get() + byServer.get());
    }
}
