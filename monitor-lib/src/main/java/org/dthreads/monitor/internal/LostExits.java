package org.dthreads.monitor.internal;

import static org.dthreads.monitor.internal.MonitorRuntime.LOG;
import static org.dthreads.monitor.internal.MonitorRuntime.TABLE;

import org.dthreads.internal.KernelLink;

/**
 * Lost-exit repair: exits that a failure inside the runtime (a {@link StackOverflowError} on a deep stack,
 * an {@link OutOfMemoryError}) interrupted, paid later so the monitor always ends up free.
 *
 * <h2>What guards what</h2>
 * The slots {@link #lostExit0}..{@link #lostExit3} and {@link #lostWake} are written with plain static
 * volatile writes and no call (the writer may have no stack left), by {@link MonitorRuntime#exit}'s last
 * resort and by {@link org.dthreads.monitor.Monitors#exit} when its own call into the runtime overflowed.
 * They are settled by the next monitor operation of any thread whose class actively holds the monitor: a
 * monitor whose exit was lost is still held by the failing thread's class, so nobody else can act on it
 * meanwhile, and only the holder's class pays (a slot is cleared once its exit committed, told by
 * {@link Actor#exitCommitted}, so none is ever paid twice, which would break exclusion).
 *
 * <h2>Ordering</h2>
 * {@link #pendingRepairs} is set after a slot is written and cleared before the slots are scanned, so a
 * repair recorded during a scan is seen by the next one (all volatile). The hot paths read only
 * {@code pendingRepairs}. Four slots: a fifth concurrent loss overwrites the last one, and is logged when
 * it is found unpaid.
 */
public final class LostExits {
    public static volatile Object lostExit0;
    public static volatile Object lostExit1;
    public static volatile Object lostExit2;
    public static volatile Object lostExit3;
    public static volatile Object lostWake;
    public static volatile boolean pendingRepairs;

    private LostExits() {}

    /** Records an exit that did not commit. Field writes only: callable with almost no stack. */
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

    static void exitFailed(Object key, Actor me, Monitor m, Throwable failure) {
        if (me.exitCommitted) {
            if (m != null) {
                m.wakeAll(); // the level was released; make sure no entrant missed the wake-up
            }
        } else {
            Monitor monitor = m != null ? m : TABLE.get(key);
            if (monitor != null && monitor.exit(me, KernelLink.currentClass())) {
                monitor.wakeAll();
            }
        }
        LOG.error("exit-failed", "dthreads: a monitor exit failed inside the runtime and was recovered: " + failure);
    }

    /**
     * Pays exits and wake-ups that a stack overflow interrupted (see the class comment). Never throws. A
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
        Monitor m = TABLE.get(key);
        if (m == null || !m.isActiveFor(me, cls) || !m.exit(me, cls)) {
            return false;
        }
        m.wakeAll();
        LOG.error("exit-repaired", "dthreads: paid a monitor exit that a stack overflow had interrupted");
        return true;
    }
}
