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

    Entrant(Thread thread, long threadClass) {
        this.thread = thread;
        this.threadClass = threadClass;
    }
}
