package org.dthreads.benchmarks.monitor;

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

    ShuffledPool<Object> objects;
    int counter;
    Object escaped;

    @Setup
    public void fillPool() {
        objects = new ShuffledPool<>(pool, Object::new, Object[]::new);
    }

    private Object nextObject() {
        return objects.next();
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

    // ---- the same on objects of a class with a monitor slot (issue 16), as the rewriter gives them ----

    /**
     * A lock whose class carries the monitor slot the rewriter adds to the classes it rewrites (declared here by
     * hand, since JMH runs without the agent): the emulated monitor lives in the object, no table entry.
     */
    public static final class SlottedLock {
        @SuppressWarnings("unused") // written by the monitor runtime through a VarHandle
        private transient Object $dthreads$monitor;
    }

    ShuffledPool<SlottedLock> slotted;

    @Setup
    public void fillSlottedPool() {
        slotted = new ShuffledPool<>(pool, SlottedLock::new, SlottedLock[]::new);
    }

    private SlottedLock nextSlotted() {
        return slotted.next();
    }

    @Benchmark
    public int nativeSlottedPool() {
        SlottedLock lock = nextSlotted();
        synchronized (lock) {
            return ++counter;
        }
    }

    @Benchmark
    public int emulatedSlottedPool() {
        SlottedLock lock = nextSlotted();
        Monitors.enter(lock);
        try {
            return ++counter;
        } finally {
            Monitors.exit(lock);
        }
    }

    @Benchmark
    public int nativeSlottedFresh() {
        SlottedLock lock = new SlottedLock();
        escaped = lock;
        synchronized (lock) {
            return ++counter;
        }
    }

    @Benchmark
    public int emulatedSlottedFresh() {
        SlottedLock lock = new SlottedLock();
        escaped = lock;
        Monitors.enter(lock);
        try {
            return ++counter;
        } finally {
            Monitors.exit(lock);
        }
    }
}
