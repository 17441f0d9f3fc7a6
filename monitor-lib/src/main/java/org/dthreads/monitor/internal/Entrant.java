package org.dthreads.monitor.internal;

/**
 * A thread parked until it can act on a monitor (enter, re-acquire after wait, or an orphan waiting for
 * its class's nested activation to unwind). Lives in the monitor's entrant queue, guarded by its queue lock.
 */
final class Entrant {
    final Thread thread;
    final long threadClass;
    /** Guarded by the monitor's queue lock. */
    boolean orphan;
    /**
     * Set (under the queue lock) by a releaser that unparked this entrant, cleared by the entrant before
     * it retries: a releaser skips the unpark (a system call) while the previous one is still pending.
     * Volatile: the entrant's clear and re-read of the owner pair with the releaser's write of the owner
     * and read of this flag, so one of the two always sees the other.
     */
    volatile boolean signalled;

    Entrant(Thread thread, long threadClass) {
        this.thread = thread;
        this.threadClass = threadClass;
    }
}
