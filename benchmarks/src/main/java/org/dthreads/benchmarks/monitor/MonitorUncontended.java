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
 * One thread, one lock, enter + increment + exit: the emulation's uncontended path (per-thread cache hit,
 * one CAS to acquire, one volatile write to release) against {@code synchronized} and ReentrantLock.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Threads(1)
@State(Scope.Thread)
public class MonitorUncontended {
    final Object lock = new Object(); // plain Object: emulated
    final Object otherLock = new Object();
    final ReentrantLock reentrantLock = new ReentrantLock();
    int counter;

    @Benchmark
    public int baseline() {
        return ++counter;
    }

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
    public int emulatedReentered() {
        Monitors.enter(lock);
        try {
            Monitors.enter(lock);
            try {
                return ++counter;
            } finally {
                Monitors.exit(lock);
            }
        } finally {
            Monitors.exit(lock);
        }
    }

    @Benchmark
    public int nativeReentered() {
        synchronized (lock) {
            synchronized (lock) {
                return ++counter;
            }
        }
    }

    /** Two locks in turn: the per-thread cache always misses, so each enter/exit looks the table up. */
    @Benchmark
    public int emulatedTableLookup() {
        Monitors.enter(lock);
        try {
            ++counter;
        } finally {
            Monitors.exit(lock);
        }
        Monitors.enter(otherLock);
        try {
            return ++counter;
        } finally {
            Monitors.exit(otherLock);
        }
    }

    @Benchmark
    public int nativeTwoLocks() {
        synchronized (lock) {
            ++counter;
        }
        synchronized (otherLock) {
            return ++counter;
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
