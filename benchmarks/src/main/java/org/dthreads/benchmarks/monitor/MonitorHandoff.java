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
 * Contended hand-off: {@link Two} and {@link Four} threads on one lock, enter + increment + exit, the
 * emulated monitor against {@code synchronized} and a non-fair ReentrantLock. Average time per
 * operation per thread (so a perfectly serialised lock shows N x its single-thread time).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public abstract class MonitorHandoff {

    /** The one lock (three kinds) and the counter it guards, shared by every thread of the benchmark. */
    @State(Scope.Benchmark)
    public static class Shared {
        final Object lock = new Object();
        final ReentrantLock reentrantLock = new ReentrantLock();
        int counter;
    }

    @Benchmark
    public int nativeSynchronized(Shared s) {
        synchronized (s.lock) {
            return ++s.counter;
        }
    }

    @Benchmark
    public int emulated(Shared s) {
        Monitors.enter(s.lock);
        try {
            return ++s.counter;
        } finally {
            Monitors.exit(s.lock);
        }
    }

    @Benchmark
    public int reentrantLock(Shared s) {
        s.reentrantLock.lock();
        try {
            return ++s.counter;
        } finally {
            s.reentrantLock.unlock();
        }
    }

    /** Two threads. */
    @Threads(2)
    public static class Two extends MonitorHandoff {}

    /** Four threads (on this 2-core machine: more threads than cores, so the losers must park). */
    @Threads(4)
    public static class Four extends MonitorHandoff {}
}
