package org.dthreads.monitor.internal;

import org.dthreads.internal.KernelLink;

/**
 * Monitor exits and wake-ups that a failure inside the runtime (a {@link StackOverflowError} on a deep
 * stack, an {@link OutOfMemoryError}) interrupted: how they are recorded and how they are paid.
 *
 * <h2>Why counts, per key</h2>
 * HotSpot bangs the stack shadow zone (tens of KiB) on every method entry, so when a deep recursion of
 * small synchronized frames overflows, every frame within that distance of the end fails its exit: often
 * hundreds of consecutive lost exits of the same monitor. A debt is therefore a key and a count of
 * levels, one slot per key; {@link #SLOTS} monitors may be in debt at once. A loss that finds no slot is
 * counted in {@link #UNRECORDED} and reported by the next settlement (that monitor stays held).
 *
 * <h2>Recording</h2>
 * An exit that failed before its committing write leaves the monitor held one level too deep. Where it
 * failed the stack is exhausted, so the recording code (inline in the catch blocks of
 * {@link MonitorRuntime#exit} and {@code Monitors.exit}; keep the copies in step with {@link #record})
 * makes no call: it takes {@link #LOCK} with {@code monitorenter} (the JVM's own code, which runs in the
 * stack's shadow zone and throws no {@code StackOverflowError}) and writes the arrays. An exit that
 * committed but whose wake-up failed is recorded in {@link #lostWake}; parked entrants also re-check on a
 * bounded timer (see {@code MonitorContention.parkForEntry}), so a lost wake-up costs at most that delay.
 *
 * <h2>What guards what; ordering</h2>
 * {@link #KEYS}, {@link #LEVELS} and {@link #UNRECORDED} are read and written only under {@link #LOCK}.
 * {@link #pendingRepairs} is written under it: set by every recording, cleared by a settlement only after
 * every slot is paid. Any thread may settle ({@link #settleQuietly}), paying each debt for whichever actor
 * holds the monitor. That is safe against the holder's own plain writes of its depth because only the
 * holder's thread records debts of its monitor, and every monitor operation reads {@link #pendingRepairs}
 * before touching a depth: if it reads true it settles first (serialized with any other settler by
 * {@link #LOCK}) and goes on only if that settlement completed (see below); if it reads false, the clearing write came after all its debts were paid, so no settler
 * will touch its monitor until it records again. Lock order: {@link #LOCK}, then a monitor's queue lock;
 * recording holds no queue lock (Java's own {@code synchronized} blocks are left before a catch runs).
 *
 * <h2>A holder whose own settlement fails</h2>
 * Where the stack is exhausted the holder's settlement can fail while a third party (a parked entrant's
 * backstop) is paying the holder's debt; if the holder then wrote its depth it would race that payment
 * (a lost update: the monitor stays held, or is freed under a holder). So a settlement that fails returns
 * false and the holder's operation does not touch a depth: an exit records itself as one more lost exit,
 * the other operations fail with {@link StackOverflowError} having changed nothing (as their call could
 * have anyway).
 *
 * <h2>An exit whose own call overflows</h2>
 * Its frame's stack bang fails before {@code Monitors.exit} runs, so no catch above sees it. Rewritten code
 * records it itself ({@code ExitOverflowGuard}: a handler around each emulated exit call, without a call):
 * under {@link #LOCK} it puts the key in the ring {@link #OVERFLOWED} and counts it in
 * {@link #overflowedExits}. A settlement first folds the ring into the slots (one level per entry); more
 * than {@link #OVERFLOWED}{@code .length} such exits before a settlement overwrite the oldest, which are
 * counted as {@link #UNRECORDED}.
 */
public final class LostExits {
    /** How many monitors may be in debt at once. */
    public static final int SLOTS = 16;
    /** Guards the slots (a native monitor: taking it is not a Java call). */
    public static final Object LOCK = new Object();
    /** The monitor key of each slot's debt, null if the slot is free. Under {@link #LOCK}. */
    public static final Object[] KEYS = new Object[SLOTS];
    /** Levels of each slot's key lost and not yet paid. Under {@link #LOCK}. */
    public static final int[] LEVELS = new int[SLOTS];
    /** Exits lost while every slot held another key: not payable, reported once. Under {@link #LOCK}. */
    public static int UNRECORDED;
    /**
     * Keys of exits recorded by rewritten code whose call to {@code Monitors.exit} overflowed, at
     * {@code overflowedExits & (length - 1)}; the length is a power of two and rewritten code has the mask
     * compiled in (keep it equal to {@code ExitOverflowGuard.OVERFLOWED_MASK} + 1). Under {@link #LOCK}.
     */
    public static final Object[] OVERFLOWED = new Object[64];
    /** How many exits were put in {@link #OVERFLOWED} since the last settlement. Under {@link #LOCK}. */
    public static int overflowedExits;
    /** A monitor whose exit committed but whose wake-up failed. */
    public static volatile Object lostWake;
    /** Whether anything above waits to be settled. Written under {@link #LOCK}; read without it. */
    public static volatile boolean pendingRepairs;
    /**
     * Thrown inside {@link MonitorRuntime#exit} (and caught there) when its settlement failed: the exit is then
     * recorded as lost instead of done. Preallocated: where it is thrown the stack is exhausted. Never escapes.
     */
    static final Error UNSETTLED = new StackOverflowError("lost exits could not be settled here");

    private LostExits() {}

    /**
     * Records one lost exit of {@code key}. The call-free copies inline in the exits' catch blocks do the
     * same; this method is for callers with stack to spare (a copy forwarding its own records).
     */
    static void record(Object key, int levels) {
        synchronized (LOCK) {
            int free = -1;
            int i = 0;
            for (; i < SLOTS; i++) {
                Object k = KEYS[i];
                if (k == key) {
                    break;
                }
                if (k == null && free < 0) {
                    free = i;
                }
            }
            if (i < SLOTS) {
                LEVELS[i] += levels;
            } else if (free >= 0) {
                KEYS[free] = key;
                LEVELS[free] = levels;
            } else {
                UNRECORDED += levels;
            }
            pendingRepairs = true;
        }
    }

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
     * Pays every recorded debt and lost wake-up, whoever's (see the class comment). Never throws. Returns
     * false if the payment failed part-way (the stack is exhausted here): the rest stays pending for the next
     * operation or parked entrant, and the caller must not touch a depth (see "Residual").
     */
    public static boolean settleQuietly() {
        int[] outcome;
        try {
            outcome = pay();
        } catch (Throwable t) {
            return false; // pendingRepairs is still true: retried later
        }
        try {
            report(outcome[0], outcome[1], outcome[2]);
        } catch (Throwable t) {
            // paid; only the log line is lost
        }
        return true;
    }

    /** Returns {paid levels, dropped levels, unrecorded levels}. */
    private static int[] pay() {
        int[] outcome = new int[3];
        synchronized (LOCK) {
            foldOverflowed();
            Object wake = lostWake;
            if (wake != null) {
                lostWake = null;
                ((Monitor) wake).wakeAll();
            }
            for (int i = 0; i < SLOTS; i++) {
                Object key = KEYS[i];
                if (key == null) {
                    continue;
                }
                Monitor m = MonitorRuntime.TABLE.get(key);
                int levels = LEVELS[i];
                int unmatched = m == null ? levels : payLostLevels(m, levels);
                // committed: no call between the payment and clearing its slot
                LEVELS[i] = 0;
                KEYS[i] = null;
                outcome[0] += levels - unmatched;
                outcome[1] += unmatched;
                if (m != null) {
                    m.wakeAll();
                }
            }
            outcome[2] = UNRECORDED;
            UNRECORDED = 0;
            pendingRepairs = false;
        }
        return outcome;
    }

    /**
     * Releases {@code levels} levels of {@code m} whose exits a stack overflow lost, for whichever actor holds the
     * monitor; the class comment's rules guarantee that the holder's thread does not touch the depth meanwhile.
     * Under the monitor's queue lock: its owner, depth and activations are written as a release or a hand-back
     * would (through its accessors named by access mode). Every write comes after the last call, so a failure
     * changes nothing. Wakes nobody (the caller does, after recording the payment). Returns how many levels
     * matched no held level and were not paid.
     */
    private static int payLostLevels(Monitor m, int levels) {
        synchronized (m) {
            if (m.getOwnerVolatile() == null || m.remote != null) {
                return levels;
            }
            int d = m.getDepthPlain() - levels;
            Activation top = m.getActivationsPlain();
            if (top != null && d <= top.baseDepth) {
                top.suspended.actor.addFrozenHolds(-1);
                m.setDepthPlain(top.baseDepth);
                m.setActivationsPlain(top.next);
                m.setOwnerVolatile(top.suspended);
                return top.baseDepth - d;
            }
            if (d > 0) {
                m.setDepthPlain(d);
                return 0;
            }
            if (m.waiting == 0) {
                m.setPinnedKeyPlain(null);
            }
            m.setOwnerVolatile(null);
            return -d;
        }
    }

    /** Moves the ring's entries into the slots, one level each. Under {@link #LOCK}. */
    private static void foldOverflowed() {
        int n = overflowedExits;
        if (n == 0) {
            return;
        }
        int kept = Math.min(n, OVERFLOWED.length);
        for (int i = 0; i < kept; i++) {
            Object key = OVERFLOWED[i];
            if (key != null) {
                record(key, 1);
                OVERFLOWED[i] = null; // folded: no call between the record and this write
            }
        }
        UNRECORDED += n - kept; // overwritten before anyone settled
        overflowedExits = 0;
    }

    private static void report(int paidLevels, int dropped, int unrecorded) {
        if (paidLevels > 0) {
            MonitorRuntime.LOG.error("exit-repaired", "dthreads: paid " + paidLevels
                    + " monitor exit(s) that a stack overflow had interrupted");
        }
        if (dropped > 0) {
            MonitorRuntime.LOG.error("exit-repair-unmatched", "dthreads: " + dropped + " lost monitor exit(s)"
                    + " no longer matched the monitor's hold and were dropped");
        }
        if (unrecorded > 0) {
            MonitorRuntime.LOG.error("exit-lost", "dthreads: " + unrecorded + " monitor exit(s) interrupted by a"
                    + " stack overflow could not be recorded (more than " + SLOTS + " monitors in debt at once);"
                    + " those monitors stay held");
        }
    }

    /** Debts not yet settled, for tests: the sum of recorded levels. */
    static int pendingLevels() {
        synchronized (LOCK) {
            int sum = Math.min(overflowedExits, OVERFLOWED.length);
            for (int i = 0; i < SLOTS; i++) {
                sum += LEVELS[i];
            }
            return sum;
        }
    }
}
