package org.dthreads.benchmarks.realworld.app;

import java.util.ArrayList;
import java.util.List;

/**
 * Hot rewritten monitor code, the case a JIT-unfriendly rewrite makes slow: a {@code synchronized} method
 * and a {@code synchronized} block on a field, called in a loop by each thread on its own counter (no
 * contention: the measure is the rewritten code itself, compiled or not; the counters escape, so the plain
 * JVM takes its real locks). Rewritten by the agent with the rest of this package.
 */
public final class HotCounter {
    /** Each thread's counter is published here, so escape analysis cannot elide the plain JVM's locks. */
    static final HotCounter[] PUBLISHED = new HotCounter[64];

    private final Object lock = new Object();
    private long methodCount;
    private long blockCount;

    public synchronized long increment() {
        return ++methodCount;
    }

    public long incrementInBlock() {
        synchronized (lock) {
            return ++blockCount;
        }
    }

    /** {@code threads} threads, each {@code perThread} calls of both methods on its own counter; the total. */
    public static long run(int threads, int perThread) throws InterruptedException {
        long[] sums = new long[threads];
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int slot = t;
            Thread thread = new Thread(() -> {
                HotCounter counter = new HotCounter();
                PUBLISHED[slot] = counter;
                long sum = 0;
                for (int i = 0; i < perThread; i++) {
                    sum += counter.increment() + counter.incrementInBlock();
                }
                sums[slot] = sum;
            });
            thread.start();
            started.add(thread);
        }
        long total = 0;
        for (int t = 0; t < threads; t++) {
            started.get(t).join();
            total += sums[t];
        }
        return total;
    }
}
