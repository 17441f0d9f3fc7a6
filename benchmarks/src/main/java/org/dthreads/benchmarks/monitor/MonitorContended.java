package org.dthreads.benchmarks.monitor;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.dthreads.monitor.Monitors;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * Two threads (two classes) on one lock: hand-off under contention, against {@code synchronized} and
 * ReentrantLock (non-fair). Average time per enter+increment+exit, per thread.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Threads(2)
@State(Scope.Benchmark)
public class MonitorContended {
    final Object lock = new Object();
    final ReentrantLock reentrantLock = new ReentrantLock();
    int counter;

    @Benchmark
    public int nativeSynchronized() {
        synchronized (lock) {
            return ++counter;
        }
    }

    @Benchmark
    public int emulated() {
        Monitors.enter(lock);
        try {
            return ++counter;
        } finally {
            Monitors.exit(lock);
        }
    }

    @Benchmark
    public int reentrantLock() {
        reentrantLock.lock();
        try {
            return ++counter;
        } finally {
            reentrantLock.unlock();
        }
    }
}
