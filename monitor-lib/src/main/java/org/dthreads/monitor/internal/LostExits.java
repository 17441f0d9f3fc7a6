package org.dthreads.monitor.internal;

import org.dthreads.internal.KernelLink;

/**
 * Monitor exits and wake-ups that a failure inside the runtime (a {@link StackOverflowError} on a deep
 * stack, an {@link OutOfMemoryError}) interrupted: how they are recorded and how they are paid.
 *
 * <h2>Recording</h2>
 * An exit that failed before its committing write leaves the monitor held one level too deep: a lost
 * exit. Where the failure happened the stack is exhausted, so the recording code (inline in the catch
 * blocks of {@link MonitorRuntime#exit} and {@code Monitors.exit}) makes no call: plain writes to the
 * static fields below. An exit that committed but whose wake-up failed is recorded in {@link #lostWake}.
 *
 * <h2>What guards what</h2>
 * {@link #pendingRepairs} is set after a slot is written and cleared before the slots are scanned, so a
 * repair recorded during a scan is seen by the next one. The slots are settled by the next monitor
 * operation of any thread whose class actively holds the monitor (a monitor whose exit was lost is still
 * held by the failing thread, and nobody else can act on it meanwhile). Four slots: a fifth concurrent
 * loss overwrites slot 3.
 */
public final class LostExits {
    public static volatile Object lostExit0;
    public static volatile Object lostExit1;
    public static volatile Object lostExit2;
    public static volatile Object lostExit3;
    public static volatile Object lostWake;
    public static volatile boolean pendingRepairs;

    private LostExits() {}

    /** The retry of a failed exit (see {@link MonitorRuntime#exit}); may throw, the caller records then. */
    static void exitFailed(Object key, Actor me, Monitor m, Throwable failure) {
        if (me.exitCommitted) {
            if (m != null) {
                m.wakeAll(); // the level was released; make sure no entrant missed the wake-up
            }
        } else {
            Monitor monitor = m != null ? m : MonitorRuntime.TABLE.get(key);
            if (monitor != null && monitor.exit(me, KernelLink.currentClass())) {
                monitor.wakeAll();
            }
        }
        MonitorRuntime.LOG.error("exit-failed",
                "dthreads: a monitor exit failed inside the runtime and was recovered: " + failure);
    }

    /**
     * Pays exits and wake-ups that a stack overflow interrupted (see the fields above). Never throws. A
     * slot is cleared once its exit has committed (told by {@link Actor#exitCommitted}, a plain field), so
     * a repair that overflows again is retried by the next operation, and none is ever paid twice (which
     * would break exclusion).
     */
    static void settleQuietly(Actor me) {
        boolean committed = me.exitCommitted;
        pendingRepairs = false;
        try {
            Object wake = lostWake;
            if (wake != null) {
                lostWake = null;
                ((Monitor) wake).wakeAll();
            }
            long cls = KernelLink.currentClass();
            for (int slot = 0; slot < 4; slot++) {
                Object key = slot == 0 ? lostExit0 : slot == 1 ? lostExit1 : slot == 2 ? lostExit2 : lostExit3;
                if (key == null) {
                    continue;
                }
                me.exitCommitted = false;
                boolean paid;
                try {
                    paid = payIfOurs(me, cls, key);
                } catch (Throwable t) {
                    paid = me.exitCommitted; // no calls in this handler: field accesses only
                }
                if (paid) {
                    if (slot == 0) {
                        lostExit0 = null;
                    } else if (slot == 1) {
                        lostExit1 = null;
                    } else if (slot == 2) {
                        lostExit2 = null;
                    } else {
                        lostExit3 = null;
                    }
                } else {
                    pendingRepairs = true; // another thread's, or failed again: a later operation retries
                }
            }
        } catch (Throwable t) {
            pendingRepairs = true;
        }
        me.exitCommitted = committed;
    }

    /** Pays one level of {@code key}'s monitor if our class holds it through us; true once committed. */
    private static boolean payIfOurs(Actor me, long cls, Object key) {
        Monitor m = MonitorRuntime.TABLE.get(key);
        if (m == null || !m.isActiveFor(me, cls) || !m.exit(me, cls)) {
            return false;
        }
        m.wakeAll();
        MonitorRuntime.LOG.error("exit-repaired", "dthreads: paid a monitor exit that a stack overflow had interrupted");
        return true;
    }

    /** See {@link MonitorRuntime#recordLostExit}. */
    static void record(Object key) {
        if (lostExit0 == null) {
            lostExit0 = key;
        } else if (lostExit1 == null) {
            lostExit1 = key;
        } else if (lostExit2 == null) {
            lostExit2 = key;
        } else {
            lostExit3 = key;
        }
        pendingRepairs = true;
    }
}
