package org.dthreads.benchmarks.monitor;

import java.util.concurrent.TimeUnit;
import org.dthreads.monitor.Monitors;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * Two threads, each on its own lock (thread-scoped state): no global lock means this scales like the
 * JVM's monitors. Compare with the one-thread numbers in {@link MonitorUncontended}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Threads(2)
@State(Scope.Thread)
public class MonitorDistinctObjects {
    final Object lock = new Object();
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
}
