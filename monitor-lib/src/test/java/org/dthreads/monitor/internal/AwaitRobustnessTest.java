package org.dthreads.monitor.internal;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.awaitility.Awaitility;
import org.dthreads.monitor.Monitors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An {@code Error} thrown inside an emulated {@code wait} (here a stack overflow, with the wait started at
 * every depth near the end of the stack in turn) must leave the caller owning the monitor, as
 * {@code Object.wait} does, and leave no node in the wait set for a later notify to be spent on.
 *
 * <p>Each round measures how deep the recursion goes, then at once recurses again inside the monitor, waiting
 * (1 ms) at each level from {@link #WAITING_LEVELS} levels before that depth on, so that the waits start
 * with less and less stack until one fails; the last ones that return ran their release and re-acquire
 * with the least stack a wait accepts; the failed wait fails with stack to spare, so the exits that follow
 * do not meet the end of the stack (an exit whose own call overflows there is ExitOverflowGuard's matter:
 * it cannot run at that depth at all). Measured per round, because the JIT changes the frame sizes: once
 * the recursion is compiled its frames shrink and it runs thousands of levels deeper (a depth measured
 * once made it wait at each of them, for minutes); a round that has waited {@link #MAX_WAITS_PER_ROUND}
 * times stops recursing. A contender takes the monitor while the waits release it, in every other round
 * also past their timeout, so that the re-acquire queues and parks; it also pays lost exits from its
 * parked backstop while the waiting thread runs.
 */
@Timeout(value = 120, unit = SECONDS)
class AwaitRobustnessTest {

    private static final int ROUNDS = 12;
    /** Levels above the measured depth where the waits start: more stack than any wait needs. */
    private static final int WAITING_LEVELS = 400;
    /** Bounds a round whose recursion went deeper than measured (compiled meanwhile). */
    private static final int MAX_WAITS_PER_ROUND = 1_000;

    /** One round's state; plain fields, so that updating them makes no call near the end of the stack. */
    private static final class Round {
        boolean measuring = true;
        int deepest;
        int waitFrom = Integer.MAX_VALUE;
        int waits;
        boolean inWait;
        boolean lostMonitor;
        int exitRetries;
    }

    private static void recurse(Object lock, int depth, Round round) throws InterruptedException {
        if (depth > round.deepest) {
            round.deepest = depth;
        }
        if (round.measuring) {
            recurse(lock, depth + 1, round); // the same frames, without monitor operations at the wall
            return;
        }
        if (round.waits >= MAX_WAITS_PER_ROUND) {
            return; // the JIT shrank the frames since the depth was measured: this round tests nothing more
        }
        Monitors.enter(lock);
        try {
            if (depth >= round.waitFrom && round.waits < MAX_WAITS_PER_ROUND) {
                round.waits++;
                round.inWait = true;
                Monitors.waitOn(lock, 0L, 1);
                round.inWait = false;
                if (!Monitors.holdsLock(lock)) {
                    round.lostMonitor = true;
                }
            }
            recurse(lock, depth + 1, round);
        } catch (Throwable t) {
            // javac's handler around a monitorexit, in this frame (a call here could overflow and lose the
            // exit): its range covers the exit itself, so it runs the exit again if it throws
            for (;;) {
                try {
                    Monitors.exit(lock);
                    break;
                } catch (Throwable again) {
                    if (++round.exitRetries > 1_000) {
                        break;
                    }
                }
            }
            throw t;
        }
        Monitors.exit(lock);
    }

    /** Starts a round below {@code padding} frames of another size, so that the wall falls elsewhere in the frames. */
    private static void pad(int padding, long a, long b, Object lock, Round round) throws InterruptedException {
        if (padding > 0) {
            pad(padding - 1, a + b, a ^ b, lock, round);
        } else {
            recurse(lock, 0, round);
        }
    }

    /**
     * Takes the monitor whenever a wait releases it and, in every other round, holds it past the wait's
     * timeout, so that the wait's re-acquire queues and parks (its deepest path) as well as taking a free
     * monitor at once.
     */
    private static Thread contender(Object lock, AtomicBoolean stop, boolean holdPastTimeout) {
        Thread t = new Thread(() -> {
            while (!stop.get()) {
                Monitors.enter(lock);
                try {
                    if (holdPastTimeout) {
                        LockSupport.parkNanos(2_000_000L);
                    }
                } finally {
                    Monitors.exit(lock);
                }
                LockSupport.parkNanos(100_000L);
            }
        }, "contender");
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Test
    void anErrorInsideWaitLeavesTheMonitorHeldAndNoWaiter() throws Exception {
        Object lock = new Object();
        List<String> wrong = new ArrayList<>();
        int metInsideAWait = 0;
        List<String> rounds = new ArrayList<>();
        for (int r = 0; r < ROUNDS && wrong.isEmpty(); r++) {
            Round round = new Round();
            try {
                pad(r % 8, r, r, lock, round); // measures
            } catch (StackOverflowError expected) {
                // found the depth
            }
            round.measuring = false;
            round.waitFrom = Math.max(0, round.deepest - WAITING_LEVELS);
            AtomicBoolean stop = new AtomicBoolean();
            Thread contender = contender(lock, stop, r % 2 == 1);
            try {
                pad(r % 8, r, r, lock, round);
            } catch (StackOverflowError expected) {
                // unwound
            } catch (IllegalMonitorStateException e) {
                wrong.add("round " + r + ": an exit or a wait found the monitor gone: " + e);
            } finally {
                stop.set(true);
                contender.join(SECONDS.toMillis(20));
            }
            if (round.lostMonitor) {
                wrong.add("round " + r + ": a wait returned without the monitor");
            }
            LostExits.settleQuietly();
            Monitor m = MonitorRuntime.TABLE.get(lock);
            if (m.getOwnerVolatile() != null) {
                wrong.add("round " + r + ": the monitor is held after the stack unwound: "
                        + java.util.Arrays.deepToString(m.snapshot()) + ", exit retries " + round.exitRetries);
            }
            if (!m.waitersSnapshot().isEmpty()) {
                wrong.add("round " + r + ": a failed wait left a waiter: " + m.waitersSnapshot().size());
            }
            if (round.inWait && round.waits > 1) { // waits returned, then one failed
                metInsideAWait++;
            }
            rounds.add("round " + r + ": deepest " + round.deepest + ", waits from " + round.waitFrom + ", "
                    + round.waits + " waits, ended " + (round.inWait ? "inside a wait" : "outside a wait"));
        }
        assertEquals(List.of(), wrong);
        assertTrue(metInsideAWait > 0, "no round met the end of the stack inside a wait: the test tested nothing: "
                + rounds);
        assertTrue(aNotifyReachesTheNextWaiter(lock), "a notify was spent on a wait that had failed");
    }

    private static boolean aNotifyReachesTheNextWaiter(Object lock) throws InterruptedException {
        AtomicBoolean woke = new AtomicBoolean();
        Thread waiter = new Thread(() -> {
            Monitors.enter(lock);
            try {
                Monitors.waitOn(lock);
                woke.set(true);
            } catch (InterruptedException e) {
                // the test's end
            } finally {
                Monitors.exit(lock);
            }
        }, "waiter");
        waiter.start();
        Awaitility.await().atMost(java.time.Duration.ofSeconds(20))
                .until(() -> !MonitorRuntime.TABLE.get(lock).waitersSnapshot().isEmpty());
        Monitors.enter(lock);
        Monitors.notifyOne(lock);
        Monitors.exit(lock);
        waiter.join(SECONDS.toMillis(10));
        waiter.interrupt();
        waiter.join(SECONDS.toMillis(10));
        return woke.get();
    }
}
