package org.dthreads.monitor;

import org.dthreads.monitor.spi.OutgoingCalls;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.dthreads.ClassScope;
import org.dthreads.DThreads;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One equivalence class, several physical threads: a "home" thread H blocked in an outgoing call
 * ({@link OutgoingCalls}) and a server thread S serving a callback for H's class (bound with
 * {@link DThreads#bind}). Each multi-thread run is compared with the equivalent single-threaded program,
 * where the callback is a plain nested call on H itself.
 */
@Timeout(value = 60, unit = SECONDS)
class ClassesAcrossThreadsTest {

    @BeforeAll
    static void fastPolling() {
        org.awaitility.Awaitility.setDefaultPollInterval(Duration.ofMillis(2));
        org.awaitility.Awaitility.setDefaultPollDelay(Duration.ZERO);
    }

    @Rewritten
    static final class Lock {
        int value;
    }

    /** Runs {@code callback} "remotely": on a new thread bound to the caller's class, while the caller is suspended. */
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

    /** The single-threaded equivalent: the callback is an ordinary nested call. */
    private static void localCall(Runnable callback) {
        callback.run();
    }

    interface Call {
        void call(Runnable callback) throws Exception;
    }

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * H holds the lock twice, calls out; the callback enters again, waits (releasing all three levels: an
     * outsider gets the lock and notifies), wakes with the depth restored, and returns; H still holds two.
     */
    private static List<String> callbackWaitsProgram(Call call) throws Exception {
        Lock lock = new Lock();
        List<String> log = new CopyOnWriteArrayList<>();
        CountDownLatch callbackWaiting = new CountDownLatch(1);
        Thread outsider = daemon("outsider", () -> {
            try {
                callbackWaiting.await();
                Monitors.enter(lock);
                try {
                    log.add("outsider in, value=" + lock.value);
                    lock.value = 2;
                    Monitors.notifyAll(lock);
                } finally {
                    Monitors.exit(lock);
                }
            } catch (InterruptedException e) {
                log.add("outsider interrupted");
            }
        });
        Monitors.enter(lock);
        Monitors.enter(lock);
        lock.value = 1;
        call.call(() -> {
            Monitors.enter(lock);
            try {
                log.add("callback in, holds=" + Monitors.holdsLock(lock) + " value=" + lock.value);
                while (lock.value != 2) {
                    callbackWaiting.countDown();
                    Monitors.waitOn(lock);
                }
                log.add("callback woke, holds=" + Monitors.holdsLock(lock));
                lock.value = 3;
            } catch (InterruptedException e) {
                log.add("callback interrupted");
            } finally {
                Monitors.exit(lock);
            }
            log.add("callback out, holds=" + Monitors.holdsLock(lock));
        });
        log.add("home back, holds=" + Monitors.holdsLock(lock) + " value=" + lock.value);
        Monitors.exit(lock);
        log.add("home after one exit, holds=" + Monitors.holdsLock(lock));
        Monitors.exit(lock);
        log.add("home after two exits, holds=" + Monitors.holdsLock(lock));
        outsider.join(SECONDS.toMillis(30));
        return log;
    }

    @Test
    void callbackThreadIsTheOwnerAndItsWaitReleasesTheWholeDepth() throws Exception {
        List<String> single = callbackWaitsProgram(ClassesAcrossThreadsTest::localCall);
        List<String> multi = callbackWaitsProgram(ClassesAcrossThreadsTest::remoteCall);
        assertEquals(List.of("callback in, holds=true value=1", "outsider in, value=1", "callback woke, holds=true",
                "callback out, holds=true", "home back, holds=true value=3", "home after one exit, holds=true",
                "home after two exits, holds=false"), single);
        assertEquals(single, multi);
    }

    private static List<String> callbackNotifiesProgram(Call call) throws Exception {
        Lock lock = new Lock();
        List<String> log = new CopyOnWriteArrayList<>();
        AtomicInteger waiting = new AtomicInteger();
        Thread waiter = daemon("waiter", () -> {
            Monitors.enter(lock);
            try {
                waiting.incrementAndGet();
                while (lock.value == 0) {
                    Monitors.waitOn(lock);
                }
                log.add("waiter woke, value=" + lock.value);
            } catch (InterruptedException e) {
                log.add("waiter interrupted");
            } finally {
                Monitors.exit(lock);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> waiting.get() == 1);
        Monitors.enter(lock);
        try {
            call.call(() -> {
                // notify without entering: the class owns the lock through the suspended home thread
                lock.value = 7;
                Monitors.notifyAll(lock);
                log.add("callback notified, holds=" + Monitors.holdsLock(lock));
            });
            log.add("home back, holds=" + Monitors.holdsLock(lock));
        } finally {
            Monitors.exit(lock);
        }
        waiter.join(SECONDS.toMillis(30));
        log.add("done, holds=" + Monitors.holdsLock(lock));
        return log;
    }

    @Test
    void callbackMayNotifyOnItsClassesLockWithoutEntering() throws Exception {
        List<String> single = callbackNotifiesProgram(ClassesAcrossThreadsTest::localCall);
        List<String> multi = callbackNotifiesProgram(ClassesAcrossThreadsTest::remoteCall);
        assertEquals(List.of("callback notified, holds=true", "home back, holds=true", "waiter woke, value=7",
                "done, holds=false"), single);
        assertEquals(single, multi);
    }

    @Test
    void writesOfTheSuspendedThreadAreVisibleToTheCallback() throws Exception {
        Lock lock = new Lock();
        AtomicInteger seen = new AtomicInteger();
        Monitors.enter(lock);
        try {
            lock.value = 42;
            remoteCall(() -> {
                Monitors.enter(lock);
                try {
                    seen.set(lock.value);
                    lock.value = 43;
                } finally {
                    Monitors.exit(lock);
                }
            });
            assertEquals(43, lock.value);
        } finally {
            Monitors.exit(lock);
        }
        assertEquals(42, seen.get());
    }

    @Test
    void aSecondRunnableThreadOfTheClassBlocksUntilTheFirstReleases() throws Exception {
        // H holds the lock and is NOT in an outgoing call: a thread bound to H's class must not act too.
        Lock lock = new Lock();
        long cls = DThreads.currentClass();
        AtomicInteger inside = new AtomicInteger();
        Monitors.enter(lock);
        Thread second;
        try {
            second = daemon("second", () -> {
                try (ClassScope scope = DThreads.bind(cls)) {
                    Monitors.enter(lock);
                    try {
                        inside.incrementAndGet();
                    } finally {
                        Monitors.exit(lock);
                    }
                }
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> (second.getState() == Thread.State.WAITING || second.getState() == Thread.State.TIMED_WAITING));
            assertEquals(0, inside.get());
        } finally {
            Monitors.exit(lock);
        }
        second.join(SECONDS.toMillis(30));
        assertEquals(1, inside.get());
        assertFalse(Monitors.holdsLock(lock));
    }

    @Test
    void orphanedCallerBlocksUntilTheNestedActivationUnwinds() throws Exception {
        // H calls out; the callback S enters and keeps running; H's call "times out" (end() while S runs).
        // H's exit must wait for S's activation to unwind: the two never act on the lock at once.
        Lock lock = new Lock();
        long cls = DThreads.currentClass();
        CountDownLatch callbackInside = new CountDownLatch(1);
        CountDownLatch letCallbackFinish = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<String> log = new CopyOnWriteArrayList<>();
        Monitors.enter(lock);
        OutgoingCalls.begin();
        Thread callback = daemon("callback", () -> {
            try (ClassScope scope = DThreads.bind(cls)) {
                Monitors.enter(lock);
                try {
                    log.add("callback in");
                    callbackInside.countDown();
                    letCallbackFinish.await();
                    log.add("callback leaving");
                } finally {
                    Monitors.exit(lock);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        callbackInside.await();
        OutgoingCalls.end(); // the call timed out: H is runnable again while S still acts for the class
        Thread home = Thread.currentThread();
        Thread releaser = daemon("releaser", () -> {
            await().atMost(Duration.ofSeconds(10)).until(() -> (home.getState() == Thread.State.WAITING || home.getState() == Thread.State.TIMED_WAITING));
            log.add("home blocked");
            letCallbackFinish.countDown();
        });
        Monitors.exit(lock); // blocks until the callback's activation unwinds
        log.add("home exited");
        callback.join(SECONDS.toMillis(30));
        releaser.join(SECONDS.toMillis(30));
        assertEquals(null, failure.get());
        assertEquals(List.of("callback in", "home blocked", "callback leaving", "home exited"), log);
        assertFalse(Monitors.holdsLock(lock));
        // and the lock is really free for others
        AtomicInteger other = new AtomicInteger();
        Thread t = daemon("other", () -> {
            Monitors.enter(lock);
            other.incrementAndGet();
            Monitors.exit(lock);
        });
        t.join(SECONDS.toMillis(30));
        assertEquals(1, other.get());
    }

    @Test
    void orphanedCallerReenteringBlocksUntilTheNestedActivationUnwinds() throws Exception {
        Lock lock = new Lock();
        long cls = DThreads.currentClass();
        CountDownLatch callbackInside = new CountDownLatch(1);
        CountDownLatch letCallbackFinish = new CountDownLatch(1);
        List<String> log = new CopyOnWriteArrayList<>();
        AtomicInteger concurrentlyInside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        Monitors.enter(lock);
        OutgoingCalls.begin();
        Thread callback = daemon("callback", () -> {
            try (ClassScope scope = DThreads.bind(cls)) {
                Monitors.enter(lock);
                try {
                    maxInside.accumulateAndGet(concurrentlyInside.incrementAndGet(), Math::max);
                    callbackInside.countDown();
                    letCallbackFinish.await();
                    log.add("callback leaving");
                    concurrentlyInside.decrementAndGet();
                } finally {
                    Monitors.exit(lock);
                }
            } catch (InterruptedException e) {
                log.add("callback interrupted");
            }
        });
        callbackInside.await();
        OutgoingCalls.end();
        Thread home = Thread.currentThread();
        Thread releaser = daemon("releaser", () -> {
            await().atMost(Duration.ofSeconds(10)).until(() -> (home.getState() == Thread.State.WAITING || home.getState() == Thread.State.TIMED_WAITING));
            log.add("home blocked");
            letCallbackFinish.countDown();
        });
        Monitors.enter(lock); // re-entry by the orphan: waits for the callback to unwind
        maxInside.accumulateAndGet(concurrentlyInside.incrementAndGet(), Math::max);
        log.add("home re-entered");
        concurrentlyInside.decrementAndGet();
        Monitors.exit(lock);
        assertTrue(Monitors.holdsLock(lock));
        Monitors.exit(lock);
        assertFalse(Monitors.holdsLock(lock));
        callback.join(SECONDS.toMillis(30));
        releaser.join(SECONDS.toMillis(30));
        assertEquals(List.of("home blocked", "callback leaving", "home re-entered"), log);
        assertEquals(1, maxInside.get(), "two runnable threads of one class were inside at once");
    }

    /** T is interrupted while in the call; the callback then waits: the wait throws at once. */
    private static List<String> interruptBeforeCallbackWaitsProgram(Call call, Runnable interruptHome)
            throws Exception {
        Lock lock = new Lock();
        List<String> log = new CopyOnWriteArrayList<>();
        Monitors.enter(lock);
        try {
            call.call(() -> {
                interruptHome.run();
                try {
                    Monitors.waitOn(lock);
                    log.add("wait returned");
                } catch (InterruptedException e) {
                    log.add("wait threw at once, holds=" + Monitors.holdsLock(lock) + " interrupted="
                            + Thread.currentThread().isInterrupted());
                }
            });
            log.add("home back, interrupted=" + Thread.interrupted());
        } finally {
            Monitors.exit(lock);
        }
        return log;
    }

    @Test
    void anInterruptOfTheSuspendedHomeThreadIsKeptForItsClassesNextWait() throws Exception {
        Thread home = Thread.currentThread();
        List<String> single = interruptBeforeCallbackWaitsProgram(ClassesAcrossThreadsTest::localCall,
                () -> Monitors.interrupt(home));
        List<String> multi = interruptBeforeCallbackWaitsProgram(ClassesAcrossThreadsTest::remoteCall,
                () -> Monitors.interrupt(home));
        assertEquals(List.of("wait threw at once, holds=true interrupted=false", "home back, interrupted=false"),
                single);
        assertEquals(single, multi);
    }

    @Test
    void anInterruptNoWaitTookIsGivenBackToTheHomeThreadWhenItsCallReturns() throws Exception {
        Thread home = Thread.currentThread();
        List<String> log = new CopyOnWriteArrayList<>();
        remoteCall(() -> {
            Monitors.interrupt(home);
            log.add("callback done");
        });
        log.add("home back, interrupted=" + Thread.interrupted());
        assertEquals(List.of("callback done", "home back, interrupted=true"), log);
    }

    @Test
    void interruptOfTheHomeThreadReachesTheCallbacksWait() throws Exception {
        Lock lock = new Lock();
        long cls = DThreads.currentClass();
        AtomicReference<String> result = new AtomicReference<>();
        AtomicReference<Thread> serverThread = new AtomicReference<>();
        Monitors.enter(lock);
        try {
            Thread home = Thread.currentThread();
            Thread interrupter = daemon("interrupter", () -> {
                await().atMost(Duration.ofSeconds(10)).until(() -> serverThread.get() != null
                        && (serverThread.get().getState() == Thread.State.WAITING || serverThread.get().getState() == Thread.State.TIMED_WAITING));
                Monitors.interrupt(home);
            });
            long before = System.nanoTime();
            OutgoingCalls.begin();
            try {
                Thread server = new Thread(() -> {
                    try (ClassScope scope = DThreads.bind(cls)) {
                        try {
                            Monitors.waitOn(lock);
                            result.set("returned");
                        } catch (InterruptedException e) {
                            result.set("interrupted, holds=" + Monitors.holdsLock(lock));
                        }
                    }
                }, "server");
                serverThread.set(server);
                server.start();
                boolean interrupted = false;
                while (server.isAlive()) { // a remote call blocked in I/O is not woken by an interrupt either
                    try {
                        server.join(SECONDS.toMillis(30));
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
                if (interrupted) {
                    home.interrupt();
                }
            } finally {
                OutgoingCalls.end();
            }
            interrupter.join(SECONDS.toMillis(30));
            assertTrue(System.nanoTime() - before < SECONDS.toNanos(30));
            assertFalse(Thread.interrupted(), "one interrupt, delivered once: the callback's wait took it");
            assertEquals("interrupted, holds=true", result.get());
            assertTrue(Monitors.holdsLock(lock));
        } finally {
            Monitors.exit(lock);
        }
    }
}
