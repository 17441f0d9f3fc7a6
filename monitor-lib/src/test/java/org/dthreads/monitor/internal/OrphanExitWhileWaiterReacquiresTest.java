package org.dthreads.monitor.internal;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.dthreads.ThreadClass;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 15 §3 (orphans): thread O of class A holds a monitor and suspends in an outgoing call; W, a nested
 * activation of A, takes over and waits, saving O's level in its wait. N (class B) takes the monitor and
 * notifies W, which is now out of the wait set but re-acquiring, with O's level still saved. O's call ends
 * (an orphan: say it timed out) and it exits: its level is frozen in W's wait, so the exit must block until
 * W hands the hold back, then release it. Before the fix the orphan's exit saw only the wait set, was refused
 * (IMSE for the caller) and the hold handed back to O later stayed held for ever. Driven on the monitor
 * directly, each actor on its own thread; deterministic (every step waits for the previous one).
 */
@Timeout(value = 30, unit = SECONDS)
class OrphanExitWhileWaiterReacquiresTest {
    private static final long A = ThreadClass.of(0x5254, 1);
    private static final long B = ThreadClass.of(0x5254, 2);

    private static <T> CompletableFuture<T> onThread(String name, java.util.concurrent.Callable<T> body) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(body.call());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return f;
    }

    @Test
    void anOrphansExitWaitsForTheNotifiedWaiterThatSavedItsLevel() throws Exception {
        Object key = new Object();
        Monitor m = new Monitor(key);
        Actor o = new Actor(null);
        assertTrue(m.tryEnterFast(o, A, key));
        o.beginOutgoingCall(A); // O suspends: a nested activation of A may take over

        Actor w = new Actor(null);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Boolean> waiter = onThread("W", () -> {
            assertTrue(m.enterSlow(w, A, key)); // takes over O's hold
            int begun = m.beginOwnerOperation(w, A);
            assertEquals(Monitor.NOTIFIED, m.waitOn(w, A, key, 0L, begun));
            release.await();
            return m.exit(w, A); // back to O's depth: hands the hold back to O
        });
        // registered, then released: both, or N's enter below races the release
        await().atMost(Duration.ofSeconds(10)).until(() -> m.waitersSnapshot().size() == 1 && m.isFree());

        Actor n = new Actor(null);
        assertTrue(m.tryEnterFast(n, B, key));
        assertEquals(Monitor.ACTIVE, m.beginOwnerOperation(n, B));
        assertTrue(m.notifyOne());
        // W is notified, out of the wait set, queued to re-acquire behind N, O's level still saved in its wait
        await().atMost(Duration.ofSeconds(10)).until(() -> m.queuedEntrants == 1 && m.waitersSnapshot().isEmpty());

        o.endOutgoingCall(); // O's call ends while its level is still frozen: O is an orphan
        CompletableFuture<Boolean> orphanExit = onThread("O", () -> m.exit(o, A));
        await().atMost(Duration.ofSeconds(10)).until(() -> orphanExit.isDone() || m.queuedEntrants == 2);
        assertFalse(orphanExit.isDone(), "the orphan's exit was refused while its level was saved in a wait "
                + "being re-acquired (exit returned " + orphanExit.getNow(null) + ")");

        assertTrue(m.exit(n, B)); // W re-acquires with O's level
        release.countDown();
        assertTrue(waiter.get(10, SECONDS), "W's exit");
        assertTrue(orphanExit.get(10, SECONDS), "the orphan's exit, once its hold came back");
        assertNull(m.getOwnerVolatile(), "the monitor is free after every level was released");
    }
}
