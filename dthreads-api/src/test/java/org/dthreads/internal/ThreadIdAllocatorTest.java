package org.dthreads.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ThreadIdAllocatorTest {

    private static final Runnable NO_WRAP = () -> {
        throw new AssertionError("unexpected wrap");
    };

    @Test
    void startsAtTheOriginAndCountsUp() {
        ThreadIdAllocator ids = new ThreadIdAllocator(1000, 0, NO_WRAP);
        assertEquals(1000, ids.next());
        assertEquals(1001, ids.next());
        assertEquals(2, ids.allocations());
    }

    @Test
    void skipsZeroWhenPassingTheTopOfTheRange() {
        ThreadIdAllocator ids = new ThreadIdAllocator(-2, 0, NO_WRAP); // 0xfffffffe
        assertEquals(0xffff_fffe, ids.next());
        assertEquals(0xffff_ffff, ids.next());
        assertEquals(1, ids.next(), "0 is skipped");
        assertEquals(2, ids.next());
    }

    @Test
    void aCycleIsEveryNonZeroValueAndThenWrapsToTheOriginOnce() {
        AtomicInteger wraps = new AtomicInteger();
        int origin = 0x1234_5678;
        // Start two allocations before the end of the first cycle.
        ThreadIdAllocator ids = new ThreadIdAllocator(origin, ThreadIdAllocator.PERIOD - 2, wraps::incrementAndGet);
        assertEquals(origin - 2, ids.next());
        assertEquals(origin - 1, ids.next(), "the last id of the cycle is the one before the origin");
        assertEquals(0, wraps.get());
        assertEquals(origin, ids.next(), "the next cycle starts at the origin again");
        assertEquals(1, wraps.get(), "the wrap is reported exactly once");
        assertEquals(origin + 1, ids.next());
        assertEquals(1, wraps.get());
    }

    @Test
    void idsAreAPureFunctionOfTheCountAcrossTheWholeCycle() {
        ThreadIdAllocator ids = new ThreadIdAllocator(1, 0, NO_WRAP);
        assertEquals(1, ids.idAt(0));
        assertEquals(0xffff_ffff, ids.idAt(ThreadIdAllocator.PERIOD - 1));
        assertEquals(1, ids.idAt(ThreadIdAllocator.PERIOD));
        ThreadIdAllocator fromTop = new ThreadIdAllocator(0xffff_ffff, 0, NO_WRAP);
        assertEquals(0xffff_ffff, fromTop.idAt(0));
        assertEquals(1, fromTop.idAt(1));
        assertEquals(0xffff_fffe, fromTop.idAt(ThreadIdAllocator.PERIOD - 1));
        for (long n = 0; n < 1_000_000; n += 997) {
            assertNotEquals(0, ids.idAt(n * 4321));
        }
    }

    @Test
    void rejectsAZeroOrigin() {
        assertThrows(IllegalArgumentException.class, () -> new ThreadIdAllocator(0, 0, NO_WRAP));
        assertThrows(IllegalArgumentException.class, () -> new ThreadIdAllocator(1, -1, NO_WRAP));
    }

    @Test
    @Timeout(60)
    void concurrentAllocationNeverHandsOutAnIdTwice() throws Exception {
        int threads = 8;
        int perThread = 200_000;
        // Start near the top so the run crosses the skipped 0.
        ThreadIdAllocator ids = new ThreadIdAllocator(-(threads * perThread / 2), 0, NO_WRAP);
        int[][] got = new int[threads][perThread];
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int[] mine = got[t];
            Thread w = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    mine[i] = ids.next();
                }
            });
            w.start();
            workers.add(w);
        }
        start.countDown();
        for (Thread w : workers) {
            w.join(TimeUnit.SECONDS.toMillis(50));
        }
        long[] all = new long[threads * perThread];
        int k = 0;
        for (int[] row : got) {
            for (int id : row) {
                assertNotEquals(0, id);
                all[k++] = Integer.toUnsignedLong(id);
            }
        }
        java.util.Arrays.sort(all);
        for (int i = 1; i < all.length; i++) {
            assertNotEquals(all[i - 1], all[i], "duplicate id");
        }
        assertEquals((long) threads * perThread, ids.allocations());
    }
}
