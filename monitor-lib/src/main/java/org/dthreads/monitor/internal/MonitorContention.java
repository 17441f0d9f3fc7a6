package org.dthreads.monitor.internal;

import java.util.concurrent.locks.LockSupport;
import org.dthreads.monitor.internal.jfr.MonitorEvents;

/**
 * Contention on one {@link Monitor}: how a thread that cannot act on it at once becomes its active actor. The
 * slow path of enter (spin, queue, take-over of a suspended hold of its class, park), and the same for exit,
 * wait and notify by an actor that is not the active one ({@link #awaitActivityOutcome}), under the orphan rules
 * of {@link Monitor} ("Several physical threads of one class"). Static methods over the monitor's state: the
 * uncontended paths stay in {@link Monitor} and never come here.
 *
 * <h2>What it reads and writes, and what guards it</h2>
 * The owner only through the monitor's accessors named by access mode: volatile reads, CAS from free, volatile
 * writes under the queue lock for a take-over. {@code depth}, {@code activations} and {@code pinnedKey}
 * (plain, through {@code get/set...Plain}) only as the actor that has just become active: after its CAS from
 * free, or under the queue lock with the owner re-checked, as in {@link Monitor}. The entrant queue and the
 * frozen-level checks ({@link #isFrozenHereLocked}) under the queue lock, the monitor's native monitor; nobody
 * parks holding it.
 *
 * <h2>Ordering</h2>
 * An entrant publishes itself ({@code enqueue}: a volatile write of {@code queuedEntrants}) and then looks at the
 * owner again before parking ("No lost wake-up" in {@link Monitor}); an orphan registers in
 * {@link InterruptRouting} and then looks again (see its "Ordering"). Every park is bounded by a lease's expiry
 * and by {@link #REPAIR_BACKSTOP_NANOS}.
 */
final class MonitorContention {
    private MonitorContention() {
    }

    /**
     * Tries a few times, spinning, before queueing: on a multi-core machine the holder of a short critical
     * section often releases within a few hundred nanoseconds, much less than a park/unpark round trip.
     * Bounded: this is not polling, the thread parks if the monitor stays busy.
     */
    private static final int SPINS = Runtime.getRuntime().availableProcessors() > 1 ? 64 : 0;

    /**
     * How long an entrant parks at most before it re-checks for lost exits ({@link LostExits}) and its
     * wake-up: the only wake-up path when a stack overflow interrupted an exit or its wake-up and the
     * holder makes no further monitor operation. Parked entrants only: no cost to the paths that acquire.
     */
    private static final long REPAIR_BACKSTOP_NANOS = 50_000_000L;

    // ---- enter ----

    /** {@link Monitor#enterSlow}. */
    static boolean enterSlow(Monitor m, Actor me, long cls, Object key) {
        if (me.frozenHolds == 0 && !(me instanceof LeaseActor)) {
            for (int i = 0; i < SPINS; i++) {
                Thread.onSpinWait();
                if (m.getOwnerVolatile() == null && m.queuedEntrants == 0 && m.casOwner(null, me.holdFor(cls))) {
                    m.setDepthPlain(1);
                    m.setPinnedKeyPlain(key);
                    return true;
                }
            }
        }
        Entrant node = null;
        Object jfr = null;
        boolean interrupted = false;
        try {
            for (;;) {
                int outcome = tryEnter(m, me, cls, key);
                if (outcome == Monitor.ACTIVE || outcome == Monitor.RETIRED_MONITOR) {
                    return outcome == Monitor.ACTIVE;
                }
                if (node == null) {
                    node = m.enqueue(Thread.currentThread(), cls);
                    jfr = JfrHooks.enterBlocked(m, key, cls);
                    continue; // re-check after publishing the entrant (see "No lost wake-up")
                }
                if (node.orphan != (outcome == Monitor.BLOCKED_ORPHAN)) {
                    m.markOrphan(node, outcome == Monitor.BLOCKED_ORPHAN);
                    if (outcome == Monitor.BLOCKED_ORPHAN) {
                        // register, then look again: a holder that suspended after our look and before the
                        // registration found nobody to wake (see InterruptRouting, "Ordering")
                        WaitsAndOrphans.orphanBlocked(me, cls, m);
                        continue;
                    }
                }
                parkForEntry(m, me);
                node.signalled = false;
                if (Thread.interrupted()) {
                    interrupted = true; // monitor entry is not interruptible; restored below
                }
            }
        } finally {
            if (node != null && node.orphan) {
                try {
                    WaitsAndOrphans.orphanUnblocked(me, cls);
                } catch (Throwable ignored) {
                    // bookkeeping only; must not fail an enter that has acquired (see finishEntry)
                }
            }
            finishEntry(m, node, interrupted, jfr);
        }
    }

    /**
     * Leaves the entrant queue after the monitor was acquired. Must not throw (a stack overflow here
     * would leave the caller owning a monitor it believes it failed to enter): a failure leaves a stale
     * queue node, which costs spurious wake-ups only.
     */
    private static void finishEntry(Monitor m, Entrant node, boolean interrupted, Object jfr) {
        try {
            if (node != null) {
                m.dequeue(node);
            }
            MonitorEvents.entered(jfr);
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        } catch (Throwable ignored) {
            // see above
        }
    }

    /**
     * One attempt to enter: ACTIVE, BLOCKED, BLOCKED_ORPHAN or RETIRED_MONITOR (also for a revoked lease). A
     * lease acquires and re-enters under the queue lock, where {@link Monitor#revokeIfExpired} marks it revoked
     * and drops its levels: so a lease never adds a level to the hold of whoever took the monitor after its
     * revocation, nor acquires once revoked (issue 15 §3).
     */
    private static int tryEnter(Monitor m, Actor me, long cls, Object key) {
        for (;;) {
            Hold h = m.getOwnerVolatile();
            if (me instanceof LeaseActor lease && (h == null || h.actor == me)) {
                synchronized (m) {
                    if (lease.isRevoked()) {
                        return Monitor.RETIRED_MONITOR;
                    }
                    if (m.getOwnerVolatile() != h) {
                        continue;
                    }
                    if (h == null) {
                        if (me.frozenHolds > 0 && isFrozenHereLocked(m, me)) {
                            return Monitor.BLOCKED_ORPHAN;
                        }
                        if (!m.casOwner(null, me.holdFor(cls))) {
                            continue;
                        }
                        m.setDepthPlain(1);
                        m.setPinnedKeyPlain(key);
                    } else {
                        m.setDepthPlain(m.getDepthPlain() + 1);
                    }
                    return Monitor.ACTIVE;
                }
            }
            if (h == null) {
                if (me.frozenHolds > 0 && isFrozenHere(m, me)) {
                    return Monitor.BLOCKED_ORPHAN;
                }
                if (m.casOwner(null, me.holdFor(cls))) {
                    m.setDepthPlain(1);
                    m.setPinnedKeyPlain(key);
                    return Monitor.ACTIVE;
                }
                continue;
            }
            if (h == Monitor.RETIRED) {
                return Monitor.RETIRED_MONITOR;
            }
            if (h == Monitor.INFLATING) {
                m.resolveInflation(key); // its inflater failed before resolving (a stack overflow): finish it
                if (m.getOwnerVolatile() != Monitor.INFLATING) {
                    continue;
                }
            }
            if (h.threadClass != cls) {
                return me.frozenHolds > 0 && isFrozenHere(m, me) ? Monitor.BLOCKED_ORPHAN : Monitor.BLOCKED;
            }
            if (h.actor == me) {
                m.setDepthPlain(m.getDepthPlain() + 1);
                return Monitor.ACTIVE;
            }
            int taken = tryTakeOver(m, h, me, cls);
            if (taken == Monitor.TOOK_OVER) {
                m.setDepthPlain(m.getDepthPlain() + 1);
                return Monitor.ACTIVE;
            }
            if (taken == Monitor.BLOCKED_ORPHAN) {
                return Monitor.BLOCKED_ORPHAN;
            }
            // the owner changed under us: look again
        }
    }

    /**
     * Another actor of {@code cls} holds the monitor: take over if it is suspended and we are not one of
     * its frozen predecessors. Returns TOOK_OVER, BLOCKED_ORPHAN, or NOT_OWNER if the owner changed.
     */
    private static int tryTakeOver(Monitor m, Hold h, Actor me, long cls) {
        synchronized (m) {
            if (m.getOwnerVolatile() != h) {
                return Monitor.NOT_OWNER;
            }
            if (!h.actor.isSuspended() || isFrozenHereLocked(m, me)) {
                return Monitor.BLOCKED_ORPHAN;
            }
            if (h.actor instanceof LeaseActor lease && !lease.tryHandOut()) {
                return Monitor.BLOCKED_ORPHAN; // expired: the waiter that revokes it will wake us
            }
            m.setActivationsPlain(new Activation(h, m.getDepthPlain(), m.getActivationsPlain()));
            h.actor.addFrozenHolds(1);
            m.setOwnerVolatile(me.holdFor(cls));
            return Monitor.TOOK_OVER;
        }
    }

    // ---- activity: exit, wait and notify by an actor that is not the active one ----

    /**
     * For exit, wait and notify by an actor that is not the active one: become active (blocking while an
     * orphan) or report that {@code cls} does not own the monitor. {@code mayTakeOver}: wait and notify
     * may act for a suspended holder of the class without entering; exit may not.
     */
    static boolean awaitActivity(Monitor m, Actor me, long cls, boolean mayTakeOver) {
        return awaitActivityOutcome(m, me, cls, mayTakeOver) != Monitor.NOT_OWNER;
    }

    static int awaitActivityOutcome(Monitor m, Actor me, long cls, boolean mayTakeOver) {
        Entrant node = null;
        boolean interrupted = false;
        try {
            for (;;) {
                int outcome = tryActivity(m, me, cls, mayTakeOver);
                if (outcome == Monitor.ACTIVE || outcome == Monitor.TOOK_OVER || outcome == Monitor.NOT_OWNER) {
                    return outcome;
                }
                if (node == null) {
                    node = m.enqueue(Thread.currentThread(), cls);
                    continue;
                }
                if (!node.orphan) {
                    m.markOrphan(node, true);
                    WaitsAndOrphans.orphanBlocked(me, cls, m);
                    continue; // registered: look again before parking (see enterSlow)
                }
                parkForEntry(m, me);
                node.signalled = false;
                if (Thread.interrupted()) {
                    interrupted = true;
                }
            }
        } finally {
            if (node != null) {
                m.dequeue(node);
                WaitsAndOrphans.orphanUnblocked(me, cls);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static int tryActivity(Monitor m, Actor me, long cls, boolean mayTakeOver) {
        for (;;) {
            Hold h = m.getOwnerVolatile();
            if (h != null && h.threadClass == cls) {
                if (h.actor == me) {
                    return Monitor.ACTIVE;
                }
                synchronized (m) {
                    if (m.getOwnerVolatile() != h) {
                        continue;
                    }
                    boolean frozen = isFrozenHereLocked(m, me);
                    if (!frozen && !h.actor.isSuspended()) {
                        // the class owns it through a runnable actor: we are an orphan of it
                        return Monitor.BLOCKED_ORPHAN;
                    }
                    if (frozen) {
                        return Monitor.BLOCKED_ORPHAN;
                    }
                    if (!mayTakeOver) {
                        return Monitor.NOT_OWNER;
                    }
                    if (h.actor instanceof LeaseActor lease && !lease.tryHandOut()) {
                        return Monitor.BLOCKED_ORPHAN;
                    }
                    m.setActivationsPlain(new Activation(h, m.getDepthPlain(), m.getActivationsPlain()));
                    h.actor.addFrozenHolds(1);
                    m.setOwnerVolatile(me.holdFor(cls));
                    return Monitor.TOOK_OVER;
                }
            }
            if (me.frozenHolds > 0) {
                // the owner read above and the frozen levels are one look under the queue lock: a stale owner
                // with levels handed back meanwhile (our hold is the owner now) must not read as NOT_OWNER
                synchronized (m) {
                    if (m.getOwnerVolatile() != h) {
                        continue;
                    }
                    if (isFrozenHereLocked(m, me)) {
                        return Monitor.BLOCKED_ORPHAN;
                    }
                }
            }
            return Monitor.NOT_OWNER;
        }
    }

    // ---- parking ----

    /**
     * Parks for entry. While the monitor is held by an expired-able lease, parks no longer than the lease
     * and revokes it once expired, so a dead remote holder cannot block local threads for ever. Parks no
     * longer than {@link #REPAIR_BACKSTOP_NANOS} either, then settles lost exits if any are pending.
     */
    static void parkForEntry(Monitor m, Actor me) {
        Hold h = m.getOwnerVolatile();
        if (h != null && h.actor instanceof LeaseActor lease && lease != me) {
            long remaining = lease.remainingNanos();
            if (remaining <= 0L) {
                MonitorLeases.revokeIfExpired(m, lease);
                return;
            }
            LockSupport.parkNanos(m, Math.min(remaining, REPAIR_BACKSTOP_NANOS));
        } else {
            LockSupport.parkNanos(m, REPAIR_BACKSTOP_NANOS);
        }
        if (LostExits.pendingRepairs) {
            LostExits.settleQuietly(); // a debt recorded after we parked: its holder may never come back
        }
    }

    private static boolean isFrozenHere(Monitor m, Actor me) {
        synchronized (m) {
            return isFrozenHereLocked(m, me);
        }
    }

    /**
     * Whether some of {@code me}'s levels are held here by another actor of its class, or saved by a wait of
     * another actor that has not re-acquired yet (waiting, or notified or timed out and re-acquiring).
     */
    private static boolean isFrozenHereLocked(Monitor m, Actor me) {
        Activation a = m.getActivationsPlain();
        if (a != null && a.contains(me)) {
            return true;
        }
        return m.isFrozenInWaitSetLocked(me);
    }
}
