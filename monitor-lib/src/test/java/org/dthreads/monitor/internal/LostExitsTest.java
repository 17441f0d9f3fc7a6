package org.dthreads.monitor.internal;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.dthreads.monitor.Monitors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lost exits (see {@link LostExits}) are recorded as per-monitor level counts and paid by any thread,
 * including an entrant that parked before the debt was recorded, while the holder makes no further
 * monitor operation. The losses are recorded here with {@link LostExits#record}, the same writes the
 * call-free copies in the exits' catch blocks make.
 */
@Timeout(value = 60, unit = SECONDS)
class LostExitsTest {

    /** The lock's debt right after its holder recorded its losses, read in the same critical section. */
    private static volatile int levelsRecorded;

    @AfterEach
    void settleLeftovers() {
        LostExits.settleQuietly();
    }

    /** A holder that loses {@code lost} of its {@code depth} exits, then blocks without any monitor operation. */
    private static Thread holderThatLoses(Object lock, int depth, int lost, CountDownLatch recorded, CountDownLatch release) {
        Thread t = new Thread(() -> {
            try {
                for (int i = 0; i < depth; i++) {
                    Monitors.enter(lock);
                }
                for (int i = 0; i < depth - lost; i++) {
                    Monitors.exit(lock);
                }
                // Any thread of this JVM may settle at any time (a parked entrant re-checks every 50 ms), so the
                // losses are recorded, and counted, in one critical section: no settlement splits them.
                synchronized (LostExits.LOCK) {
                    for (int i = 0; i < lost; i++) {
                        LostExits.record(lock, 1);
                    }
                    int levels = 0;
                    for (int i = 0; i < LostExits.SLOTS; i++) {
                        levels += LostExits.KEYS[i] == lock ? LostExits.LEVELS[i] : 0;
                    }
                    levelsRecorded = levels;
                }
                recorded.countDown();
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "holder");
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Test
    void hundredsOfLostLevelsOfOneMonitorArePaidByAnotherThread() throws Exception {
        Object lock = new Object();
        CountDownLatch recorded = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = holderThatLoses(lock, 600, 500, recorded, release);
        try {
            assertTrue(recorded.await(20, SECONDS));
            assertEquals(500, levelsRecorded, "500 losses of one monitor, one slot");
            Monitors.enter(lock); // settles first (unless another thread did): the holder never comes back
            assertTrue(Monitors.holdsLock(lock));
            Monitors.exit(lock);
            assertEquals(0, LostExits.pendingLevels());
            assertFalse(LostExits.pendingRepairs);
        } finally {
            release.countDown();
            holder.join(SECONDS.toMillis(20));
        }
    }

    @Test
    void anEntrantParkedBeforeTheDebtWasRecordedPaysIt() throws Exception {
        Object lock = new Object();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch lose = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            Monitors.enter(lock);
            Monitors.enter(lock);
            entered.countDown();
            try {
                lose.await();
                Monitors.exit(lock);
                LostExits.record(lock, 1); // the outer exit, lost; then no monitor operation at all
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "holder");
        holder.setDaemon(true);
        holder.start();
        assertTrue(entered.await(20, SECONDS));
        AtomicBoolean acquired = new AtomicBoolean();
        Thread entrant = new Thread(() -> {
            Monitors.enter(lock);
            acquired.set(true);
            Monitors.exit(lock);
        }, "entrant");
        entrant.start();
        try {
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20))
                    .until(() -> entrant.getState() == Thread.State.WAITING
                            || entrant.getState() == Thread.State.TIMED_WAITING);
            lose.countDown();
            entrant.join(SECONDS.toMillis(20));
            assertTrue(acquired.get(), "the parked entrant never got the monitor");
        } finally {
            release.countDown();
            holder.join(SECONDS.toMillis(20));
        }
    }

    @Test
    void moreMonitorsInDebtThanSlotsIsReportedAndTheRecordedOnesArePaid() throws Exception {
        int monitors = LostExits.SLOTS + 1;
        Object[] locks = new Object[monitors];
        CountDownLatch entered = new CountDownLatch(monitors);
        CountDownLatch release = new CountDownLatch(1);
        Thread[] holders = new Thread[monitors];
        for (int i = 0; i < monitors; i++) {
            locks[i] = new Object();
            Object lock = locks[i];
            holders[i] = new Thread(() -> {
                Monitors.enter(lock); // and never exits: the exit is recorded as lost below
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "holder-" + i);
            holders[i].setDaemon(true);
            holders[i].start();
        }
        try {
            assertTrue(entered.await(20, SECONDS));
            // Each holder holds its monitor and makes no further operation. Their losses are recorded here in one
            // critical section: any thread of this JVM may settle whenever debts are pending (a parked entrant of
            // another test re-checks every 50 ms), and a settlement between two losses would free the slots.
            synchronized (LostExits.LOCK) {
                for (Object lock : locks) {
                    LostExits.record(lock, 1);
                }
                assertEquals(1, LostExits.UNRECORDED, "the seventeenth loss has no slot");
            }
            LostExits.settleQuietly();
            assertFalse(LostExits.pendingRepairs);
            int free = 0;
            for (Object lock : locks) {
                // a paid monitor is free and idle, so the table's sweep (after any collection in this JVM) may
                // retire it before we look: gone or retired counts as free; a held one is never swept
                Monitor m = MonitorRuntime.TABLE.get(lock);
                free += m == null || m.getOwnerVolatile() == null || m.isRetired() ? 1 : 0;
            }
            assertEquals(LostExits.SLOTS, free, "every recorded debt is paid; the unrecorded monitor stays held");
        } finally {
            release.countDown();
            for (Thread t : holders) {
                t.join(SECONDS.toMillis(20));
            }
        }
    }
}
