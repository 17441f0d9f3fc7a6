package org.dthreads.monitor.internal;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.dthreads.monitor.Monitors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An {@code Error} thrown inside an emulated {@code wait} (here a stack overflow, at every point of the
 * wait's code in turn) must leave the caller owning the monitor, as {@code Object.wait} does, and leave
 * no node in the wait set for a later notify to be spent on.
 */
@Timeout(value = 120, unit = SECONDS)
class AwaitRobustnessTest {

    private static int deepest;

    /** Recurses inside the monitor; at {@code waitAt} (and below) waits 1 ns before going deeper. */
    private static void recurse(Object lock, int depth, int waitAt, List<String> wrong) throws InterruptedException {
        deepest = Math.max(deepest, depth);
        Monitors.enter(lock);
        try {
            if (depth >= waitAt) {
                try {
                    Monitors.waitOn(lock, 0L, 1);
                } finally {
                    if (!Monitors.holdsLock(lock)) {
                        wrong.add("wait returned without the monitor at depth " + depth);
                    }
                }
            }
            recurse(lock, depth + 1, waitAt, wrong);
        } finally {
            Monitors.exit(lock);
        }
    }

    @Test
    void anErrorInsideWaitLeavesTheMonitorHeldAndNoWaiter() throws Exception {
        Object lock = new Object();
        List<String> wrong = new ArrayList<>();
        deepest = 0;
        try {
            recurse(lock, 0, Integer.MAX_VALUE, wrong);
        } catch (StackOverflowError expected) {
            // found the depth
        }
        int max = deepest;
        int attempts = 0;
        for (int waitAt = Math.max(0, max - 40); waitAt <= max + 5 && wrong.isEmpty(); waitAt++) {
            attempts++;
            try {
                recurse(lock, 0, waitAt, wrong);
            } catch (StackOverflowError | IllegalMonitorStateException e) {
                if (e instanceof IllegalMonitorStateException) {
                    wrong.add("an exit found the monitor gone: " + e);
                }
            }
            LostExits.settleQuietly();
            Monitor m = MonitorRuntime.TABLE.get(lock);
            if (m.getOwnerVolatile() != null) {
                wrong.add("the monitor is held after the stack unwound (waiting from depth " + waitAt + ")");
            }
        }
        assertTrue(attempts > 0);
        assertEquals(List.of(), wrong);
        assertTrue(aNotifyReachesTheNextWaiter(lock), "a notify was spent on a wait that had failed");
    }

    private static boolean aNotifyReachesTheNextWaiter(Object lock) throws InterruptedException {
        java.util.concurrent.atomic.AtomicBoolean woke = new java.util.concurrent.atomic.AtomicBoolean();
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
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20))
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
