package org.dthreads.monitor.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A burst of short-lived threads that each acquired a slot monitor (10,000 virtual threads, one per task) leaves
 * nothing registered in {@link HeldSlotMonitors} once they are gone and {@link HeldSlotMonitors#pruneDead} ran (as
 * it does after every collection): before, their lists and {@code Thread} objects stayed until the registry
 * next filled up.
 */
@Timeout(60)
class HeldSlotMonitorsPruneTest {

    private static int registered() {
        return HeldSlotMonitors.registeredCount();
    }

    @Test
    void theListsOfABurstOfEndedThreadsAreDroppedAndTheRegistryShrinks() throws InterruptedException {
        int before = registered();
        for (int wave = 0; wave < 4; wave++) { // 500 alive at once, so the registry grows to hold them all
            CountDownLatch registeredAll = new CountDownLatch(500);
            CountDownLatch end = new CountDownLatch(1);
            List<Thread> burst = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                Thread t = new Thread(() -> {
                    HeldSlotMonitors.registerFor(Thread.currentThread());
                    registeredAll.countDown();
                    awaitQuietly(end);
                }, "burst-" + wave + "-" + i);
                burst.add(t);
                t.start();
            }
            registeredAll.await();
            end.countDown();
            for (Thread b : burst) {
                b.join();
            }
        }
        int capacityAfterBurst = HeldSlotMonitors.capacity();
        HeldSlotMonitors held = HeldSlotMonitors.registerFor(Thread.currentThread()); // a live list stays
        HeldSlotMonitors.pruneDead();
        int after = registered();
        assertTrue(after <= before + 1, "registered before " + before + ", after the burst and a prune " + after);
        assertTrue(capacityAfterBurst >= 500 && HeldSlotMonitors.capacity() <= Math.max(16, 4 * after),
                "capacity after the burst " + capacityAfterBurst + ", after the prune " + HeldSlotMonitors.capacity());
        assertTrue(held != null);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
