package org.dthreads.benchmarks.realworld.app;

/**
 * A short-lived object locked once, as application code does it: a {@code synchronized} method on the
 * object and a {@code synchronized} block on a fresh plain {@code Object}. This package is the one part
 * of the benchmarks the agent rewrites (the drivers pass {@code -Ddthreads.include=} this package;
 * everything else under {@code org.dthreads.} is excluded by default).
 */
public final class LockedCell {

    private long value;

    public LockedCell(long value) {
        this.value = value;
    }

    /** A synchronized method on this object. */
    public synchronized long addAndGet(long delta) {
        value += delta;
        return value;
    }

    /** A synchronized block on a plain {@code Object} allocated for this call (a class the agent cannot give a slot). */
    public static long lockFresh(long x) {
        Object lock = new Object();
        synchronized (lock) {
            return x * 3 + lock.getClass().getName().length();
        }
    }
}
