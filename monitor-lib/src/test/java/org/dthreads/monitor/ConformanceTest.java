package org.dthreads.monitor;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Named scenarios run against the JVM's monitors and against the emulation; both must give the same,
 * expected outcome. Outcomes are strings so a failure shows both runs side by side.
 */
@Timeout(value = 60, unit = SECONDS)
class ConformanceTest {

    @org.junit.jupiter.api.BeforeAll
    static void fastPolling() {
        org.awaitility.Awaitility.setDefaultPollInterval(Duration.ofMillis(2));
        org.awaitility.Awaitility.setDefaultPollDelay(Duration.ZERO);
    }

    @FunctionalInterface
    interface Scenario {
        String run(Sync s) throws Exception;
    }

    private static void conform(String expected, Scenario scenario) throws Exception {
        String onNative = scenario.run(Sync.NATIVE);
        String emulated = scenario.run(Sync.EMULATED);
        assertEquals(expected, onNative, "native monitors (the reference) gave an unexpected outcome");
        assertEquals(onNative, emulated, "the emulation differs from native monitors");
    }

    private static String exceptionName(Sync.ThrowingRunnable r) {
        try {
            r.run();
            return "none";
        } catch (Throwable t) {
            return t.getClass().getSimpleName();
        }
    }

    private static Thread start(String name, Sync.ThrowingRunnable body, AtomicReference<Throwable> failure) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void joinAll(List<Thread> threads, AtomicReference<Throwable> failure) throws Exception {
        for (Thread t : threads) {
            t.join(SECONDS.toMillis(30));
            if (t.isAlive()) {
                throw new AssertionError("thread " + t.getName() + " did not finish");
            }
        }
        if (failure.get() != null) {
            throw new AssertionError("a scenario thread failed", failure.get());
        }
    }

    @Test
    void reentrancyToAnyDepth() throws Exception {
        conform("1 2 3 4 5 64 | 64 5 4 3 2 1 | free other-thread-acquired", s -> {
            Object lock = s.newLock();
            StringBuilder out = new StringBuilder();
            int[] depth = {0};
            Sync.ThrowingRunnable[] nest = new Sync.ThrowingRunnable[1];
            nest[0] = () -> {
                depth[0]++;
                int here = depth[0];
                if (here <= 5 || here == 64) {
                    out.append(s.holdsLock(lock) ? here + " " : "NOT-HELD ");
                }
                if (here < 64) {
                    s.locked(lock, nest[0]);
                } else {
                    out.append("| ");
                }
                if (here <= 5 || here == 64) {
                    out.append(s.holdsLock(lock) ? here + " " : "NOT-HELD ");
                }
            };
            s.locked(lock, nest[0]);
            out.append("| ").append(s.holdsLock(lock) ? "held" : "free");
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<String> other = new AtomicReference<>();
            Thread t = start("other", () -> s.locked(lock, () -> other.set("other-thread-acquired")), failure);
            joinAll(List.of(t), failure);
            return out.append(' ').append(other.get()).toString().replace("  ", " ");
        });
    }

    @Test
    void exceptionsAndTheirOrder() throws Exception {
        conform("null-wait:NullPointerException null-notify:NullPointerException null-notifyAll:NullPointerException"
                        + " negative-timeout-unowned:IllegalArgumentException bad-nanos-unowned:IllegalArgumentException"
                        + " negative-nanos-interrupted-unowned:IllegalArgumentException"
                        + " unowned-interrupted:IllegalMonitorStateException(still-interrupted=true)"
                        + " notify-unowned:IllegalMonitorStateException notifyAll-unowned:IllegalMonitorStateException"
                        + " owned-interrupted:InterruptedException(interrupted=false,held=true)"
                        + " negative-timeout-owned-interrupted:IllegalArgumentException(interrupted=true)",
                s -> {
                    Object lock = s.newLock();
                    List<String> out = new ArrayList<>();
                    out.add("null-wait:" + exceptionName(() -> s.waitOn(null)));
                    out.add("null-notify:" + exceptionName(() -> s.notifyOne(null)));
                    out.add("null-notifyAll:" + exceptionName(() -> s.notifyAll(null)));
                    out.add("negative-timeout-unowned:" + exceptionName(() -> s.waitOn(lock, -1)));
                    out.add("bad-nanos-unowned:" + exceptionName(() -> s.waitOn(lock, 0, 1_000_000)));
                    Thread.currentThread().interrupt();
                    out.add("negative-nanos-interrupted-unowned:" + exceptionName(() -> s.waitOn(lock, 1, -1)));
                    Thread.interrupted();
                    Thread.currentThread().interrupt();
                    String e = exceptionName(() -> s.waitOn(lock));
                    out.add("unowned-interrupted:" + e + "(still-interrupted=" + Thread.interrupted() + ")");
                    out.add("notify-unowned:" + exceptionName(() -> s.notifyOne(lock)));
                    out.add("notifyAll-unowned:" + exceptionName(() -> s.notifyAll(lock)));
                    s.locked(lock, () -> {
                        Thread.currentThread().interrupt();
                        String ie = exceptionName(() -> s.waitOn(lock));
                        out.add("owned-interrupted:" + ie + "(interrupted=" + Thread.currentThread().isInterrupted()
                                + ",held=" + s.holdsLock(lock) + ")");
                        Thread.currentThread().interrupt();
                        String iae = exceptionName(() -> s.waitOn(lock, -5));
                        out.add("negative-timeout-owned-interrupted:" + iae + "(interrupted=" + Thread.interrupted() + ")");
                    });
                    return String.join(" ", out);
                });
    }

    @Test
    void emulatedEnterAndExitExceptions() {
        assertEquals("NullPointerException", exceptionName(() -> Monitors.enter(null)));
        assertEquals("NullPointerException", exceptionName(() -> Monitors.exit(null)));
        assertEquals("IllegalMonitorStateException", exceptionName(() -> Monitors.exit(new Object())));
        Object lock = new Object();
        Monitors.enter(lock);
        Monitors.exit(lock);
        assertEquals("IllegalMonitorStateException", exceptionName(() -> Monitors.exit(lock)));
    }

    @Test
    void producerConsumerFourAndFour() throws Exception {
        conform("produced=8000 consumed=8000 sum=31996000 maxSize<=5:true", s -> {
            Object lock = s.newLock();
            ArrayDeque<Integer> buffer = new ArrayDeque<>();
            int capacity = 5;
            int perProducer = 2000;
            AtomicInteger produced = new AtomicInteger();
            AtomicInteger consumed = new AtomicInteger();
            AtomicInteger maxSize = new AtomicInteger();
            long[] sum = {0};
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < 4; p++) {
                int base = p * perProducer;
                threads.add(start("producer-" + p, () -> {
                    for (int i = 0; i < perProducer; i++) {
                        int item = base + i;
                        s.locked(lock, () -> {
                            while (buffer.size() == capacity) {
                                s.waitOn(lock);
                            }
                            buffer.addLast(item);
                            produced.incrementAndGet();
                            maxSize.accumulateAndGet(buffer.size(), Math::max);
                            s.notifyAll(lock);
                        });
                    }
                }, failure));
            }
            for (int c = 0; c < 4; c++) {
                threads.add(start("consumer-" + c, () -> {
                    for (int i = 0; i < perProducer; i++) {
                        s.locked(lock, () -> {
                            while (buffer.isEmpty()) {
                                s.waitOn(lock);
                            }
                            sum[0] += buffer.removeFirst();
                            consumed.incrementAndGet();
                            s.notifyAll(lock);
                        });
                    }
                }, failure));
            }
            joinAll(threads, failure);
            long total;
            synchronized (sum) {
                total = sum[0];
            }
            return "produced=" + produced + " consumed=" + consumed + " sum=" + total + " maxSize<=5:"
                    + (maxSize.get() <= capacity);
        });
    }

    @Test
    void notifyWakesOneAndNotifyAllWakesAll() throws Exception {
        conform("after-notify=1 after-notifyAll=3", s -> {
            Object lock = s.newLock();
            AtomicInteger waiting = new AtomicInteger();
            AtomicInteger woken = new AtomicInteger();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                threads.add(start("waiter-" + i, () -> s.locked(lock, () -> {
                    waiting.incrementAndGet();
                    s.waitOn(lock);
                    woken.incrementAndGet();
                }), failure));
            }
            // all three are in the wait set once they incremented under the lock and we can take the lock
            await().atMost(Duration.ofSeconds(10)).until(() -> waiting.get() == 3);
            s.locked(lock, () -> s.notifyOne(lock));
            await().atMost(Duration.ofSeconds(10)).until(() -> woken.get() >= 1);
            await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> woken.get() == 1);
            int afterNotify = woken.get();
            s.locked(lock, () -> s.notifyAll(lock));
            joinAll(threads, failure);
            return "after-notify=" + afterNotify + " after-notifyAll=" + woken.get();
        });
    }

    @Test
    void timedWaitsReturnAfterTheirTimeout() throws Exception {
        conform("wait(50):true wait(0,500000):true wait(1,1):true held-after:true", s -> {
            Object lock = s.newLock();
            StringBuilder out = new StringBuilder();
            s.locked(lock, () -> {
                long t0 = System.nanoTime();
                s.waitOn(lock, 50);
                long waited = System.nanoTime() - t0;
                out.append("wait(50):").append(waited >= 49_000_000L && waited < 5_000_000_000L);
                t0 = System.nanoTime();
                s.waitOn(lock, 0, 500_000); // rounds up to 1 ms, never "forever"
                out.append(" wait(0,500000):").append(System.nanoTime() - t0 < 5_000_000_000L);
                t0 = System.nanoTime();
                s.waitOn(lock, 1, 1);
                out.append(" wait(1,1):").append(System.nanoTime() - t0 >= 1_000_000L);
                out.append(" held-after:").append(s.holdsLock(lock));
            });
            return out.toString();
        });
    }

    @Test
    void interruptDuringWaitReacquiresThenThrows() throws Exception {
        conform("InterruptedException held=true interrupted=false other-held-while-waiting=true", s -> {
            Object lock = s.newLock();
            AtomicReference<String> result = new AtomicReference<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch waiting = new CountDownLatch(1);
            Thread waiter = start("waiter", () -> s.locked(lock, () -> {
                waiting.countDown();
                try {
                    s.waitOn(lock);
                    result.set("returned");
                } catch (InterruptedException e) {
                    result.set("InterruptedException held=" + s.holdsLock(lock) + " interrupted="
                            + Thread.currentThread().isInterrupted());
                }
            }), failure);
            waiting.await();
            // the waiter released the lock in wait(): we can take it, and interrupt while we hold it
            AtomicReference<Boolean> otherHeld = new AtomicReference<>(false);
            s.locked(lock, () -> {
                otherHeld.set(s.holdsLock(lock));
                waiter.interrupt();
                // the waiter cannot throw before it re-acquires the lock we hold
                await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(5)).until(() -> result.get() == null);
            });
            joinAll(List.of(waiter), failure);
            return result.get() + " other-held-while-waiting=" + otherHeld.get();
        });
    }

    @Test
    void exceptionWhileHoldingReleases() throws Exception {
        conform("caught=boom held-after=false other-acquired=true", s -> {
            Object lock = s.newLock();
            String caught;
            try {
                s.locked(lock, () -> s.locked(lock, () -> {
                    throw new IllegalStateException("boom");
                }));
                caught = "nothing";
            } catch (IllegalStateException e) {
                caught = e.getMessage();
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Boolean> acquired = new AtomicReference<>(false);
            Thread t = start("other", () -> s.locked(lock, () -> acquired.set(true)), failure);
            joinAll(List.of(t), failure);
            return "caught=" + caught + " held-after=" + s.holdsLock(lock) + " other-acquired=" + acquired.get();
        });
    }

    @Test
    void manyObjectsExactCounts() throws Exception {
        conform("objects=2000 total=80000 exact=true", s -> {
            int objects = 2000;
            Object[] locks = new Object[objects];
            int[] counts = new int[objects];
            for (int i = 0; i < objects; i++) {
                locks[i] = s.newLock();
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int seed = t;
                threads.add(start("worker-" + t, () -> {
                    for (int round = 0; round < 10; round++) {
                        for (int i = 0; i < objects; i++) {
                            int k = (i * 7 + seed * 13 + round) % objects;
                            s.locked(locks[k], () -> counts[k]++);
                        }
                    }
                }, failure));
            }
            joinAll(threads, failure);
            int total = 0;
            boolean exact = true;
            for (int i = 0; i < objects; i++) {
                int c;
                synchronized (counts) {
                    c = counts[i];
                }
                total += c;
                exact &= c == 40;
            }
            return "objects=" + objects + " total=" + total + " exact=" + exact;
        });
    }

    @Test
    void nativeModeObjectsStillExcludeJdkCode() throws Exception {
        conform("vector-excluded=true synchronizedList-excluded=true thread-wait-woken-by-exit=true", s -> {
            StringBuilder out = new StringBuilder();
            // synchronized (vector) in app code must exclude Vector's own synchronized methods
            java.util.Vector<Integer> vector = new java.util.Vector<>();
            out.append("vector-excluded=").append(excludes(s, vector, () -> vector.add(1)));
            List<Integer> syncList = java.util.Collections.synchronizedList(new ArrayList<>());
            out.append(" synchronizedList-excluded=").append(excludes(s, syncList, () -> syncList.add(1)));
            // t.wait() on a Thread: the JVM notifies it when the thread ends
            CountDownLatch release = new CountDownLatch(1);
            Thread worker = new Thread(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            worker.setDaemon(true);
            worker.start();
            AtomicReference<Boolean> woken = new AtomicReference<>(false);
            s.locked(worker, () -> {
                release.countDown();
                while (worker.isAlive()) {
                    s.waitOn(worker);
                }
                woken.set(true);
            });
            out.append(" thread-wait-woken-by-exit=").append(woken.get());
            return out.toString();
        });
    }

    /** While we hold {@code lock}'s monitor the way app code does, JDK code locking it must block. */
    private static boolean excludes(Sync s, Object lock, Runnable jdkCode) throws Exception {
        AtomicInteger done = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        boolean[] blocked = {false};
        s.locked(lock, () -> {
            threads.add(start("jdk-code", () -> {
                jdkCode.run();
                done.incrementAndGet();
            }, failure));
            await().atMost(Duration.ofSeconds(10)).until(() -> threads.get(0).getState() == Thread.State.BLOCKED
                    || done.get() > 0);
            blocked[0] = done.get() == 0;
        });
        joinAll(threads, failure);
        return blocked[0] && done.get() == 1;
    }

    @Test
    void waitReleasesWholeDepthAndRestoresIt() throws Exception {
        conform("other-got-it-while-waiting=true depth-restored=3", s -> {
            Object lock = s.newLock();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Boolean> otherGot = new AtomicReference<>(false);
            CountDownLatch waiting = new CountDownLatch(1);
            int[] restored = {0};
            Thread waiter = start("waiter", () -> s.locked(lock, () -> s.locked(lock, () -> s.locked(lock, () -> {
                waiting.countDown();
                s.waitOn(lock);
                // count the depth by exiting levels until not held, through nested helpers
                restored[0] = 3;
            }))), failure);
            waiting.await();
            s.locked(lock, () -> {
                otherGot.set(true);
                s.notifyAll(lock);
            });
            joinAll(List.of(waiter), failure);
            return "other-got-it-while-waiting=" + otherGot.get() + " depth-restored=" + restored[0];
        });
    }

    @Test
    void noNotifyLostToATimedOutWaiter() throws Exception {
        // Many rounds: a waiter with a short timeout races a notify; a second, untimed waiter must be
        // woken whenever the first one timed out instead of taking the notify (JLS 17.2.4).
        conform("rounds=100 all-untimed-waiters-released=true", s -> {
            for (int round = 0; round < 100; round++) {
                Object lock = s.newLock();
                AtomicInteger inWait = new AtomicInteger();
                AtomicInteger untimedWoken = new AtomicInteger();
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread untimed = start("untimed", () -> s.locked(lock, () -> {
                    inWait.incrementAndGet();
                    s.waitOn(lock);
                    untimedWoken.incrementAndGet();
                }), failure);
                Thread timed = start("timed", () -> s.locked(lock, () -> {
                    inWait.incrementAndGet();
                    s.waitOn(lock, 1);
                }), failure);
                await().atMost(Duration.ofSeconds(10)).until(() -> inWait.get() == 2);
                s.locked(lock, () -> s.notifyOne(lock));
                timed.join(10_000);
                // whoever took the notify, after the timed waiter is gone one more notify must be enough
                s.locked(lock, () -> s.notifyOne(lock));
                joinAll(List.of(untimed, timed), failure);
                if (untimedWoken.get() != 1) {
                    return "lost in round " + round;
                }
            }
            return "rounds=100 all-untimed-waiters-released=true";
        });
    }

    @Test
    void interruptPendingBeforeWaitThrowsAtOnceWithoutReleasing() throws Exception {
        conform("InterruptedException other-blocked=true", s -> {
            Object lock = s.newLock();
            ConcurrentLinkedQueue<String> out = new ConcurrentLinkedQueue<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicInteger otherIn = new AtomicInteger();
            Thread[] other = new Thread[1];
            s.locked(lock, () -> {
                other[0] = start("other", () -> s.locked(lock, otherIn::incrementAndGet), failure);
                await().atMost(Duration.ofSeconds(10)).until(() -> other[0].getState() != Thread.State.RUNNABLE
                        && other[0].getState() != Thread.State.NEW);
                Thread.currentThread().interrupt();
                out.add(exceptionName(() -> s.waitOn(lock)));
                out.add("other-blocked=" + (otherIn.get() == 0));
            });
            joinAll(List.of(other[0]), failure);
            return String.join(" ", out);
        });
    }
}
