package org.dthreads.benchmarks.monitor;

import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.dthreads.monitor.Monitors;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * The path real code takes and {@link MonitorUncontended} hides: every operation locks a different
 * object, so the emulation's per-thread "last monitor" cache always misses. From a pool of
 * {@code pool} objects visited in a shuffled order ({@code *Pool}; 1,000 fits the caches, 1,000,000
 * does not), and on an object allocated for the operation ({@code *Fresh}; stored in a field first, so
 * escape analysis cannot remove the native lock). One thread, enter + increment + exit.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Threads(1)
@State(Scope.Thread)
public class MonitorCacheMiss {

    @Param({"1000", "1000000"})
    int pool;

    Object[] objects;
    int next;
    int counter;
    Object escaped;

    @Setup
    public void fillPool() {
        Object[] o = new Object[pool];
        for (int i = 0; i < pool; i++) {
            o[i] = new Object();
        }
        List<Object> shuffled = java.util.Arrays.asList(o);
        Collections.shuffle(shuffled, new Random(42));
        objects = o;
    }

    private Object nextObject() {
        Object o = objects[next];
        next = next + 1 == objects.length ? 0 : next + 1;
        return o;
    }

    @Benchmark
    public int nativePool() {
        Object lock = nextObject();
        synchronized (lock) {
            return ++counter;
        }
    }

    @Benchmark
    public int emulatedPool() {
        Object lock = nextObject();
        Monitors.enter(lock);
        try {
            return ++counter;
        } finally {
            Monitors.exit(lock);
        }
    }

    @Benchmark
    public int nativeFresh() {
        Object lock = new Object();
        escaped = lock;
        synchronized (lock) {
            return ++counter;
        }
    }

    @Benchmark
    public int emulatedFresh() {
        Object lock = new Object();
        escaped = lock;
        Monitors.enter(lock);
        try {
            return ++counter;
        } finally {
            Monitors.exit(lock);
        }
    }
}
