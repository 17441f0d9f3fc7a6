package org.dthreads.monitor;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.dthreads.monitor.internal.MonitorRuntime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * 2,000,000 short-lived lock objects under {@code -Xmx64m} (surefire execution "small-heap"): idle
 * monitors must be weak, so the table holds only the live ones.
 */
@Timeout(value = 120, unit = SECONDS)
class SmallHeapChurnTest {

    @Rewritten
    static final class Payload {
        final byte[] ballast = new byte[64];
        int count;
    }

    @Test
    void twoMillionShortLivedLockObjects() throws Exception {
        long maxHeap = Runtime.getRuntime().maxMemory();
        assertTrue(maxHeap <= 80L * 1024 * 1024, "run with -Xmx64m (the small-heap execution): max heap " + maxHeap);
        int threads = 2;
        int perThread = 1_000_000;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                try {
                    for (int i = 0; i < perThread; i++) {
                        Payload p = new Payload();
                        Monitors.enter(p);
                        try {
                            Monitors.enter(p);
                            p.count++;
                            Monitors.exit(p);
                        } finally {
                            Monitors.exit(p);
                        }
                        if ((i & 1023) == 0) {
                            Monitors.enter(p);
                            Monitors.waitOn(p, 0, 1); // a short timed wait now and then: the pin must go too
                            Monitors.exit(p);
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "churn-" + t);
            w.start();
            workers.add(w);
        }
        for (Thread w : workers) {
            w.join(SECONDS.toMillis(110));
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        System.gc();
        int size = MonitorRuntime.tableSize();
        // only monitors whose keys are still reachable (the per-thread cache keeps one each) or not yet
        // collected remain: nowhere near 2,000,000
        assertTrue(size < 200_000, "monitor table still holds " + size + " entries");
        assertEquals(0, org.dthreads.monitor.MonitorDump.snapshot().size());
    }
}
