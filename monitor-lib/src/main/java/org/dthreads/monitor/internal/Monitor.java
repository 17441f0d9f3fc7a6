package org.dthreads.monitor.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import org.dthreads.monitor.internal.jfr.MonitorEvents;

/**
 * The emulated monitor of one object: owned by a thread equivalence class, re-entrant, with a wait set.
 * This class is the ownership (enter, exit, take-over by another thread of the class, hand-back, wait's
 * release and re-acquire, lease revocation); its base classes hold the {@link WaitSet} and the
 * {@link EntrantQueue}, in the same object so the hot paths pay no indirection.
 *
 * <h2>State and what guards it</h2>
 * <ul>
 *   <li>{@link #owner}: the {@link Hold} (class + acting actor) or {@code null} when free. Changed only by
 *       CAS from {@code null} (acquire) or by the active actor (release, hand-over to a nested activation
 *       and back). Read and written only through its accessors named by access mode
 *       ({@link #getOwnerVolatile}, {@code casOwner}, {@code setOwnerVolatile}): every change is a volatile
 *       write; every ownership check is a volatile read. This is
 *       the only field the uncontended paths touch besides {@link #depth}.</li>
 *   <li>{@link #depth}, {@link #activations}, {@link #pinnedKey}: guarded by ownership. Only the active
 *       actor's thread reads or writes them. Ownership passes with a volatile write of {@code owner}
 *       (release) followed by a volatile read/CAS of it by the next actor (acquire), so each new actor
 *       sees its predecessor's writes.</li>
 *   <li>the entrant queue and wait set (in {@link EntrantQueue} and {@link WaitSet}):
 *       guarded by the queue lock, the native monitor of this {@code Monitor} object. It is private to
 *       this monitor: operations on different objects never share a lock. Nobody parks while holding it.</li>
 *   <li>{@code queuedEntrants}, {@code waiting}: volatile mirrors of the queue sizes, written under the
 *       queue lock and read without it so releases skip the lock when nobody is queued.</li>
 * </ul>
 *
 * <h2>No lost wake-up</h2>
 * An entrant increments {@code queuedEntrants} (volatile write) and then re-reads {@code owner}
 * (volatile read) before parking; a releaser writes {@code owner = null} (volatile write) and then reads
 * {@code queuedEntrants} (volatile read). Volatile accesses are sequentially consistent, so at least one
 * of the two sees the other: either the entrant sees the monitor free and retries, or the releaser sees
 * it queued and unparks the head of the queue. An unpark that arrives before the park is kept as the
 * thread's permit.
 *
 * <h2>Several physical threads of one class</h2>
 * A thread whose class owns the monitor, but which is not the acting actor, may take over only when the
 * acting actor is <em>suspended</em> (blocked in an outgoing remote call, or a remote lease): it pushes an
 * {@link Activation} recording the suspended hold and the depth at which it took over, and the hold is
 * handed back when the depth returns there. A thread whose class owns the monitor through a
 * <em>runnable</em> other actor (an orphaned caller whose remote call timed out while the callee still
 * runs for it), or whose own levels are frozen in an activation or in a pending wait of its class, parks
 * until the hold comes back to it. So two runnable threads of one class never act on one monitor.
 *
 * <h2>Memory model</h2>
 * An enter by another physical thread of the class is an acquire: the take-over reads the suspended
 * actor's {@code outgoingCalls} (volatile), which that actor wrote after all its writes in the critical
 * section, and then writes {@code owner} with a volatile write under the queue lock; the hand-back is a
 * volatile write of {@code owner} read by the resumed thread before its next monitor operation.
 */
final class Monitor extends WaitSet {
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(Monitor.class, "owner", Hold.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Outcome of trying to act on the monitor without blocking (distinct from the wait outcomes below). */
    static final int ACTIVE = 0;
    static final int TOOK_OVER = 1;
    static final int NOT_OWNER = 2;
    static final int BLOCKED = 3;
    static final int BLOCKED_ORPHAN = 4;
    /** The monitor was retired by a table sweep (see {@link MonitorTable}): look the key up again. */
    static final int RETIRED_MONITOR = 5;

    private volatile Hold owner;
    private int depth;
    private Activation activations;
    private Object pinnedKey;


    final int identityHash;
    final String typeName;
    /**
     * The object whose monitor slot holds this monitor ({@link MonitorSlots}), else null: a slot copied with
     * its object ({@code clone}, a field-copying library) holds another object's monitor, which this tells.
     * Written before the slot's CAS publishes the monitor, never again.
     */
    Object slotOwner;
    /**
     * Non-null when the key is a stub: its monitor operations go to the object's site. Such a monitor's
     * {@link #owner} is {@link #REMOTE_REFERENCE} for ever, so every uncontended path fails at once and the
     * runtime checks this field on its slow paths only.
     */
    final RemoteReference remote;

    /** The permanent owner of a stub's monitor: no thread class is 0, so no actor ever matches it. */
    private static final Hold REMOTE_REFERENCE = new Hold(new Actor(null), 0L);
    /** The permanent owner of a monitor a table sweep dropped: every CAS from free fails on it. */
    private static final Hold RETIRED = new Hold(new Actor(null), 0L);
    /**
     * The owner of a monitor inflated from a thin slot value until {@link #resolveInflation} says whose it is (see
     * {@link ThinLock}, "Copies"): no actor matches it and its class is none, so everyone blocks meanwhile.
     */
    private static final Hold INFLATING = new Hold(new Actor(null), 0L);
    /** The thin value this monitor replaced, until {@link #resolveInflation}; written before publication. */
    private ThinLock inflatedFrom;

    Monitor(Object key) {
        this.identityHash = System.identityHashCode(key);
        this.typeName = key.getClass().getName();
        this.remote = MonitorModes.isRemoteType(key) ? RemoteReference.of(key) : null;
        if (remote != null) {
            setOwnerVolatile(REMOTE_REFERENCE);
        }
    }

    // ---- VarHandle accessors, named by access mode: every read and write of owner goes through them ----

    Hold getOwnerVolatile() {
        return owner;
    }

    private boolean casOwner(Hold expected, Hold update) {
        return OWNER.compareAndSet(this, expected, update);
    }

    private void setOwnerVolatile(Hold h) {
        owner = h;
    }

    @Override
    boolean isFree() {
        return getOwnerVolatile() == null;
    }

    // ---- retirement (MonitorTable's sweep) ----

    /**
     * Retires the monitor if it is free, nobody is queued and nobody is inside a wait (a notified waiter
     * re-acquires from free: {@link #awaiting} covers it until then). Under the queue lock, so no entrant
     * enqueues and no waiter registers meanwhile; an entrant that read the monitor before sees the
     * sentinel and looks its key up again. Final.
     */
    boolean tryRetire() {
        synchronized (this) {
            return getOwnerVolatile() == null && queuedEntrants == 0 && awaiting == 0 && casOwner(null, RETIRED);
        }
    }

    boolean isRetired() {
        return getOwnerVolatile() == RETIRED;
    }

    // ---- inflation of a thin slot value (ThinLock) ----

    /** A monitor describing the thin hold {@code t} of {@code key} for diagnostics, installed nowhere. */
    static Monitor thinView(Object key, ThinLock t) {
        Monitor m = new Monitor(key);
        m.slotOwner = key;
        m.depth = t.depth;
        m.setOwnerVolatile(t.hold);
        return m;
    }

    /** Before the slot's CAS publishes this monitor in place of {@code t}: owned by nobody until resolved. */
    void prepareInflation(ThinLock t) {
        inflatedFrom = t;
        setOwnerVolatile(INFLATING);
    }

    /**
     * Completes an inflation once this monitor is in the slot (any thread, any number of times): the replaced thin
     * value's hold at its depth if its holder lists the object, else free (the value was a copy). Decided only now,
     * when no thin change of the slot can happen any more, so the answer is not stale (see {@link ThinLock}). A
     * failure (a stack overflow) leaves it unresolved for the next caller, who may have more stack.
     */
    void resolveInflation(Object key) {
        if (getOwnerVolatile() != INFLATING) {
            return;
        }
        synchronized (this) {
            if (getOwnerVolatile() != INFLATING) {
                return;
            }
            ThinLock t = inflatedFrom;
            if (ThinLock.isGenuine(t, key)) {
                depth = t.depth;
                pinnedKey = key;
                inflatedFrom = null;
                setOwnerVolatile(t.hold);
            } else {
                inflatedFrom = null;
                setOwnerVolatile(null);
            }
        }
        if (queuedEntrants > 0) {
            wakeEntrants(true);
        }
    }

    // ---- enter ----

    /** Uncontended paths; false if the caller must take {@link #enterSlow}. */
    boolean tryEnterFast(Actor me, long cls, Object key) {
        Hold h = getOwnerVolatile();
        if (h == null) {
            if (me.frozenHolds == 0 && casOwner(null, me.holdFor(cls))) {
                depth = 1;
                pinnedKey = key;
                return true;
            }
            return false;
        }
        if (h.isActive(me, cls)) {
            depth++;
            return true;
        }
        return false;
    }

    /**
     * Tries a few times, spinning, before queueing: on a multi-core machine the holder of a short critical
     * section often releases within a few hundred nanoseconds, much less than a park/unpark round trip.
     * Bounded: this is not polling, the thread parks if the monitor stays busy.
     */
    private static final int SPINS = Runtime.getRuntime().availableProcessors() > 1 ? 64 : 0;

    /**
     * Returns false (not entered) only if the monitor was retired, or {@code me} is a lease that was revoked
     * (see {@link #tryEnter}): the caller looks the key up again.
     */
    boolean enterSlow(Actor me, long cls, Object key) {
        if (me.frozenHolds == 0 && !(me instanceof LeaseActor)) {
            for (int i = 0; i < SPINS; i++) {
                Thread.onSpinWait();
                if (getOwnerVolatile() == null && queuedEntrants == 0 && casOwner(null, me.holdFor(cls))) {
                    depth = 1;
                    pinnedKey = key;
                    return true;
                }
            }
        }
        Entrant node = null;
        Object jfr = null;
        boolean interrupted = false;
        try {
            for (;;) {
                int outcome = tryEnter(me, cls, key);
                if (outcome == ACTIVE || outcome == RETIRED_MONITOR) {
                    return outcome == ACTIVE;
                }
                if (node == null) {
                    node = enqueue(Thread.currentThread(), cls);
                    jfr = JfrHooks.enterBlocked(this, key, cls);
                    continue; // re-check after publishing the entrant (see "No lost wake-up")
                }
                if (node.orphan != (outcome == BLOCKED_ORPHAN)) {
                    markOrphan(node, outcome == BLOCKED_ORPHAN);
                    if (outcome == BLOCKED_ORPHAN) {
                        // register, then look again: a holder that suspended after our look and before the
                        // registration found nobody to wake (see InterruptRouting, "Ordering")
                        InterruptRouting.orphanBlocked(me, cls, this);
                        continue;
                    }
                }
                parkForEntry(me);
                node.signalled = false;
                if (Thread.interrupted()) {
                    interrupted = true; // monitor entry is not interruptible; restored below
                }
            }
        } finally {
            if (node != null && node.orphan) {
                try {
                    InterruptRouting.orphanUnblocked(me, cls);
                } catch (Throwable ignored) {
                    // bookkeeping only; must not fail an enter that has acquired (see finishEntry)
                }
            }
            finishEntry(node, interrupted, jfr);
        }
    }

    /**
     * Leaves the entrant queue after the monitor was acquired. Must not throw (a stack overflow here
     * would leave the caller owning a monitor it believes it failed to enter): a failure leaves a stale
     * queue node, which costs spurious wake-ups only.
     */
    private void finishEntry(Entrant node, boolean interrupted, Object jfr) {
        try {
            if (node != null) {
                dequeue(node);
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
     * lease acquires and re-enters under the queue lock, where {@link #revokeIfExpired} marks it revoked and
     * drops its levels: so a lease never adds a level to the hold of whoever took the monitor after its
     * revocation, nor acquires once revoked (issue 15 §3).
     */
    private int tryEnter(Actor me, long cls, Object key) {
        for (;;) {
            Hold h = getOwnerVolatile();
            if (me instanceof LeaseActor lease && (h == null || h.actor == me)) {
                synchronized (this) {
                    if (lease.isRevoked()) {
                        return RETIRED_MONITOR;
                    }
                    if (getOwnerVolatile() != h) {
                        continue;
                    }
                    if (h == null) {
                        if (me.frozenHolds > 0 && isFrozenHereLocked(me)) {
                            return BLOCKED_ORPHAN;
                        }
                        if (!casOwner(null, me.holdFor(cls))) {
                            continue;
                        }
                        depth = 1;
                        pinnedKey = key;
                    } else {
                        depth++;
                    }
                    return ACTIVE;
                }
            }
            if (h == null) {
                if (me.frozenHolds > 0 && isFrozenHere(me)) {
                    return BLOCKED_ORPHAN;
                }
                if (casOwner(null, me.holdFor(cls))) {
                    depth = 1;
                    pinnedKey = key;
                    return ACTIVE;
                }
                continue;
            }
            if (h == RETIRED) {
                return RETIRED_MONITOR;
            }
            if (h == INFLATING) {
                resolveInflation(key); // its inflater failed before resolving (a stack overflow): finish it
                if (getOwnerVolatile() != INFLATING) {
                    continue;
                }
            }
            if (h.threadClass != cls) {
                return me.frozenHolds > 0 && isFrozenHere(me) ? BLOCKED_ORPHAN : BLOCKED;
            }
            if (h.actor == me) {
                depth++;
                return ACTIVE;
            }
            int taken = tryTakeOver(h, me, cls);
            if (taken == TOOK_OVER) {
                depth++;
                return ACTIVE;
            }
            if (taken == BLOCKED_ORPHAN) {
                return BLOCKED_ORPHAN;
            }
            // the owner changed under us: look again
        }
    }

    /**
     * Another actor of {@code cls} holds the monitor: take over if it is suspended and we are not one of
     * its frozen predecessors. Returns TOOK_OVER, BLOCKED_ORPHAN, or NOT_OWNER if the owner changed.
     */
    private int tryTakeOver(Hold h, Actor me, long cls) {
        synchronized (this) {
            if (getOwnerVolatile() != h) {
                return NOT_OWNER;
            }
            if (!h.actor.isSuspended() || isFrozenHereLocked(me)) {
                return BLOCKED_ORPHAN;
            }
            if (h.actor instanceof LeaseActor lease && !lease.tryHandOut()) {
                return BLOCKED_ORPHAN; // expired: the waiter that revokes it will wake us
            }
            activations = new Activation(h, depth, activations);
            h.actor.addFrozenHolds(1);
            setOwnerVolatile(me.holdFor(cls));
            return TOOK_OVER;
        }
    }

    // ---- exit ----

    /**
     * Releases one level. Returns false (changing nothing) if {@code cls} does not hold the monitor through
     * {@code me} and {@code me} has no frozen levels here; blocks if it has (orphan) until they come back.
     */
    boolean exit(Actor me, long cls) {
        if (me instanceof LeaseActor lease) {
            return exitLease(lease, cls);
        }
        Hold h = getOwnerVolatile();
        if (h == null || !h.isActive(me, cls)) {
            if (!awaitActivity(me, cls, false)) {
                return false;
            }
        }
        releaseOne(me);
        return true;
    }

    /**
     * A remote holder's exit, run by the server thread acting for its lease. The check that the lease holds
     * and the release are one step under the queue lock, which {@link #revokeIfExpired} holds: a lease revoked
     * after {@code remoteExit} found it valid either exits before the revocation or finds it no longer holds,
     * and never frees the hold of a contender that took the monitor meanwhile (issue 15 §3).
     */
    private boolean exitLease(LeaseActor lease, long cls) {
        for (;;) {
            synchronized (this) {
                Hold h = getOwnerVolatile();
                if (h != null && h.isActive(lease, cls)) {
                    releaseOne(lease); // its hand-back and wake-up re-enter the (re-entrant) queue lock
                    return true;
                }
            }
            if (!awaitActivity(lease, cls, false)) {
                return false; // or blocks while frozen (an orphan), then looks again
            }
        }
    }

    /**
     * A remote holder's notify under its lease: like {@link #exitLease}, the ownership check and the notify are
     * one step under the queue lock, so a lease revoked meanwhile never notifies for the contender that took
     * the monitor. A lease acts only through its own hold (it never takes over a suspended local hold to
     * notify). Returns false if the lease does not hold the monitor.
     */
    boolean notifyForLease(LeaseActor lease, long cls, boolean all) {
        for (;;) {
            synchronized (this) {
                Hold h = getOwnerVolatile();
                if (h != null && h.isActive(lease, cls)) {
                    if (all) {
                        notifyEvery();
                    } else {
                        notifyOne();
                    }
                    return true;
                }
            }
            if (!awaitActivity(lease, cls, false)) {
                return false;
            }
        }
    }

    /** We are the active actor. Each path's last write commits the exit; nothing after it can fail. */
    private void releaseOne(Actor me) {
        int d = depth - 1;
        Activation top = activations;
        if (top != null && d <= top.baseDepth) {
            depth = d;
            handBack(top, me);
            return;
        }
        if (d > 0) {
            depth = d;
            me.exitCommitted = true;
            return;
        }
        fullRelease(me);
    }

    private void fullRelease(Actor me) {
        if (waiting == 0) {
            pinnedKey = null; // nobody needs the key kept alive any more: weak again
        }
        setOwnerVolatile(null);
        me.exitCommitted = true;
        if (queuedEntrants > 0) {
            wakeEntrants(false);
        }
    }

    /** Restores the suspended hold on top of the activation stack. */
    private void handBack(Activation top, Actor me) {
        synchronized (this) {
            activations = top.next;
            setOwnerVolatile(top.suspended);
            me.exitCommitted = true;
            top.suspended.actor.addFrozenHolds(-1);
        }
        if (queuedEntrants > 0) {
            wakeEntrants(true);
        }
    }

    /** After a wait/notify done by taking over without entering: give the hold back at once. */
    private void handBackIfEmpty(Actor me) {
        Activation top = activations;
        if (top != null && depth == top.baseDepth) {
            handBack(top, me);
        }
    }

    /** After an exit failed part-way: wake everyone who may now proceed. */
    void wakeAll() {
        if (queuedEntrants > 0) {
            wakeEntrants(true);
        }
    }

    /**
     * Releases {@code levels} levels whose exits a stack overflow lost, for whichever actor holds the
     * monitor; {@link LostExits} guarantees that the holder's thread does not touch the depth meanwhile.
     * Every write comes after the last call, so a failure changes nothing. Wakes nobody (the caller does,
     * after recording the payment). Returns how many levels matched no held level and were not paid.
     */
    int payLostLevels(int levels) {
        synchronized (this) {
            if (owner == null || remote != null) {
                return levels;
            }
            int d = depth - levels;
            Activation top = activations;
            if (top != null && d <= top.baseDepth) {
                top.suspended.actor.addFrozenHolds(-1);
                depth = top.baseDepth;
                activations = top.next;
                setOwnerVolatile(top.suspended);
                return top.baseDepth - d;
            }
            if (d > 0) {
                depth = d;
                return 0;
            }
            if (waiting == 0) {
                pinnedKey = null;
            }
            setOwnerVolatile(null);
            return -d;
        }
    }

    /** The re-entry depth; owner-confined, so meaningful to the active actor only (1: just acquired from free). */
    int activeDepth() {
        return depth;
    }

    boolean isActiveFor(Actor me, long cls) {
        Hold h = getOwnerVolatile();
        return h != null && h.isActive(me, cls);
    }

    /**
     * For exit, wait and notify by an actor that is not the active one: become active (blocking while an
     * orphan) or report that {@code cls} does not own the monitor. {@code mayTakeOver}: wait and notify
     * may act for a suspended holder of the class without entering; exit may not.
     */
    private boolean awaitActivity(Actor me, long cls, boolean mayTakeOver) {
        return awaitActivityOutcome(me, cls, mayTakeOver) != NOT_OWNER;
    }

    private int awaitActivityOutcome(Actor me, long cls, boolean mayTakeOver) {
        Entrant node = null;
        boolean interrupted = false;
        try {
            for (;;) {
                int outcome = tryActivity(me, cls, mayTakeOver);
                if (outcome == ACTIVE || outcome == TOOK_OVER || outcome == NOT_OWNER) {
                    return outcome;
                }
                if (node == null) {
                    node = enqueue(Thread.currentThread(), cls);
                    continue;
                }
                if (!node.orphan) {
                    markOrphan(node, true);
                    InterruptRouting.orphanBlocked(me, cls, this);
                    continue; // registered: look again before parking (see enterSlow)
                }
                parkForEntry(me);
                node.signalled = false;
                if (Thread.interrupted()) {
                    interrupted = true;
                }
            }
        } finally {
            if (node != null) {
                dequeue(node);
                InterruptRouting.orphanUnblocked(me, cls);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private int tryActivity(Actor me, long cls, boolean mayTakeOver) {
        for (;;) {
            Hold h = getOwnerVolatile();
            if (h != null && h.threadClass == cls) {
                if (h.actor == me) {
                    return ACTIVE;
                }
                synchronized (this) {
                    if (getOwnerVolatile() != h) {
                        continue;
                    }
                    boolean frozen = isFrozenHereLocked(me);
                    if (!frozen && !h.actor.isSuspended()) {
                        // the class owns it through a runnable actor: we are an orphan of it
                        return BLOCKED_ORPHAN;
                    }
                    if (frozen) {
                        return BLOCKED_ORPHAN;
                    }
                    if (!mayTakeOver) {
                        return NOT_OWNER;
                    }
                    if (h.actor instanceof LeaseActor lease && !lease.tryHandOut()) {
                        return BLOCKED_ORPHAN;
                    }
                    activations = new Activation(h, depth, activations);
                    h.actor.addFrozenHolds(1);
                    setOwnerVolatile(me.holdFor(cls));
                    return TOOK_OVER;
                }
            }
            if (me.frozenHolds > 0) {
                // the owner read above and the frozen levels are one look under the queue lock: a stale owner
                // with levels handed back meanwhile (our hold is the owner now) must not read as NOT_OWNER
                synchronized (this) {
                    if (getOwnerVolatile() != h) {
                        continue;
                    }
                    if (isFrozenHereLocked(me)) {
                        return BLOCKED_ORPHAN;
                    }
                }
            }
            return NOT_OWNER;
        }
    }

    // ---- wait / notify ----

    /** Outcome of {@link #waitOn}: how the wait ended (distinct from the activity outcomes above). */
    static final int NOTIFIED = 10;
    static final int INTERRUPTED = 11;
    static final int TIMED_OUT = 12;

    /**
     * Checks that {@code cls} owns the monitor, becoming the active actor. Returns false if it does not.
     * On true the caller must follow with {@link #waitOn}, {@link #notifyOne}, {@link #notifyEvery} or
     * {@link #endTakeOver}.
     */
    int beginOwnerOperation(Actor me, long cls) {
        Hold h = getOwnerVolatile();
        if (h != null && h.isActive(me, cls)) {
            return ACTIVE;
        }
        return awaitActivityOutcome(me, cls, true);
    }

    void endTakeOver(Actor me, int begun) {
        if (begun == TOOK_OVER) {
            handBackIfEmpty(me);
        }
    }

    /**
     * Releases the whole depth (and any activations of the class), waits for a notify, the timeout or an
     * interrupt, then re-acquires and restores it. Returns INTERRUPTED if the wait ended by interrupt (the
     * caller throws), NOTIFIED or TIMED_OUT (which {@code Object.wait} does not tell apart), or NOT_OWNER
     * (nothing changed) if {@code me} is a lease revoked since the caller's ownership check.
     * {@code timeoutNanos <= 0} means no timeout.
     */
    int waitOn(Actor me, long cls, Object key, long timeoutNanos, int begun) {
        Object jfr = MonitorEvents.waitBegins();
        Thread self = Thread.currentThread();
        WaitNode node = new WaitNode(me, cls, self);
        addWaiter(node); // counts the wait in awaiting until waitDone
        // From here on an Error (a stack overflow, an OOM) must neither leave the node for a later notify
        // to be spent on nor return without the monitor: the finally below undoes both.
        boolean released = false;
        boolean interrupted = false;
        boolean notified = false;
        boolean interruptedWhileReacquiring = false;
        try {
            InterruptRouting.waitStarted(node);
            released = release(me, cls, node);
            if (released) {
                if (queuedEntrants > 0) {
                    wakeEntrants(false);
                }
                // an interrupt kept for the class while we were registering: as if it came during the wait
                interrupted = InterruptRouting.takeClassInterrupt(cls);
                interrupted = parkUntilSignalled(node, timeoutNanos, interrupted);
            }
        } finally {
            try {
                notified = leaveWaitSet(node);
                InterruptRouting.waitEnded(node);
            } catch (Throwable t) {
                // the stack is still exhausted here: no call. Notifies skip and drop an abandoned node.
                node.state = WaitNode.CANCELLED;
                throw t;
            } finally {
                if (released) {
                    interruptedWhileReacquiring = reacquire(me, cls, key, node);
                }
                // skipped only if the re-acquire failed: the monitor is then never retired. Until here the
                // node's saved activations count as frozen levels (a notified or timed-out waiter keeps them)
                waitDone(node);
            }
        }
        if (!released) {
            return NOT_OWNER; // a lease revoked since the caller's check: it held nothing to wait with
        }
        if (begun == TOOK_OVER) {
            handBackIfEmpty(me);
        }
        JfrHooks.waited(jfr, this, key, node, timeoutNanos, notified, interrupted);
        if (interrupted && !notified) {
            if (interruptedWhileReacquiring) {
                self.interrupt();
            }
            return INTERRUPTED;
        }
        if (interrupted || interruptedWhileReacquiring) {
            self.interrupt(); // notified and interrupted: return normally, interrupt still pending
        }
        return notified ? NOTIFIED : TIMED_OUT;
    }

    /**
     * A wait's release of the whole depth, under the queue lock. For a lease the check that it still holds and
     * the release are one step, as in {@link #exitLease}: a lease revoked after the caller's check (its expiry
     * was read before the wait was counted, see {@link LeaseActor#beginWait}) releases nothing, and never the
     * hold of the contender that took the monitor (issue 15 §3). Returns whether it released.
     */
    private boolean release(Actor me, long cls, WaitNode node) {
        synchronized (this) {
            if (me instanceof LeaseActor lease) {
                Hold h = getOwnerVolatile();
                if (lease.isRevoked() || h == null || !h.isActive(me, cls)) {
                    return false;
                }
            }
            node.savedDepth = depth;
            node.savedActivations = activations;
            activations = null;
            // pinnedKey stays: waiting > 0
            setOwnerVolatile(null);
            return true;
        }
    }

    /** Parks until notified, timed out or interrupted; returns whether interrupted. */
    private boolean parkUntilSignalled(WaitNode node, long timeoutNanos, boolean interrupted) {
        boolean timed = timeoutNanos > 0;
        long deadline = timed ? System.nanoTime() + timeoutNanos : 0L;
        while (!interrupted && node.state == WaitNode.WAITING) {
            if (timed) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0L) {
                    break;
                }
                LockSupport.parkNanos(this, remaining);
            } else {
                LockSupport.park(this);
            }
            if (Thread.interrupted()) {
                return true;
            }
        }
        return interrupted;
    }


    /** Takes the monitor back from free and restores the saved depth and activations. */
    private boolean reacquire(Actor me, long cls, Object key, WaitNode saved) {
        Entrant node = null;
        boolean interrupted = false;
        try {
            for (;;) {
                if (getOwnerVolatile() == null && casOwner(null, me.holdFor(cls))) {
                    depth = saved.savedDepth;
                    activations = saved.savedActivations;
                    pinnedKey = key;
                    return interrupted;
                }
                if (node == null) {
                    node = enqueue(Thread.currentThread(), cls);
                    continue;
                }
                parkForEntry(me);
                node.signalled = false;
                if (Thread.interrupted()) {
                    interrupted = true;
                }
            }
        } finally {
            if (node != null) {
                dequeue(node);
            }
        }
    }

    /** Whether {@code cls} owns the monitor (through any of its actors): {@code holdsLock}. */
    boolean holdsFor(long cls) {
        Hold h = getOwnerVolatile();
        return h != null && h.threadClass == cls;
    }

    // ---- remote leases ----

    /**
     * Revokes an expired lease that holds the monitor: the levels it held are dropped (handing back to a
     * suspended local hold if the lease had taken over, else freeing the monitor). Returns true if it did.
     */
    boolean revokeIfExpired(LeaseActor lease) {
        synchronized (this) {
            Hold h = getOwnerVolatile();
            if (h == null || h.actor != lease || !lease.isExpired()) {
                return false;
            }
            lease.markRevoked();
            Activation top = activations;
            if (top != null) {
                depth = top.baseDepth;
                activations = top.next;
                setOwnerVolatile(top.suspended);
                top.suspended.actor.addFrozenHolds(-1);
            } else {
                if (waiting == 0) {
                    pinnedKey = null;
                }
                setOwnerVolatile(null);
            }
        }
        wakeEntrants(true);
        return true;
    }

    // ---- parking ----

    /**
     * Parks for entry. While the monitor is held by an expired-able lease, parks no longer than the lease
     * and revokes it once expired, so a dead remote holder cannot block local threads for ever. Parks no
     * longer than {@link #REPAIR_BACKSTOP_NANOS} either, then settles lost exits if any are pending.
     */
    private void parkForEntry(Actor me) {
        Hold h = getOwnerVolatile();
        if (h != null && h.actor instanceof LeaseActor lease && lease != me) {
            long remaining = lease.remainingNanos();
            if (remaining <= 0L) {
                revokeIfExpired(lease);
                return;
            }
            LockSupport.parkNanos(this, Math.min(remaining, REPAIR_BACKSTOP_NANOS));
        } else {
            LockSupport.parkNanos(this, REPAIR_BACKSTOP_NANOS);
        }
        if (LostExits.pendingRepairs) {
            LostExits.settleQuietly(); // a debt recorded after we parked: its holder may never come back
        }
    }

    /**
     * How long an entrant parks at most before it re-checks for lost exits ({@link LostExits}) and its
     * wake-up: the only wake-up path when a stack overflow interrupted an exit or its wake-up and the
     * holder makes no further monitor operation. Parked entrants only: no cost to the paths that acquire.
     */
    private static final long REPAIR_BACKSTOP_NANOS = 50_000_000L;

    private boolean isFrozenHere(Actor me) {
        synchronized (this) {
            return isFrozenHereLocked(me);
        }
    }

    /**
     * Whether some of {@code me}'s levels are held here by another actor of its class, or saved by a wait of
     * another actor that has not re-acquired yet (waiting, or notified or timed out and re-acquiring).
     */
    private boolean isFrozenHereLocked(Actor me) {
        Activation a = activations;
        if (a != null && a.contains(me)) {
            return true;
        }
        return isFrozenInWaitSetLocked(me);
    }

    // ---- dump ----

    /** Whether the monitor is worth a line in a dump: owned, waited on or queued. */
    boolean isBusy() {
        if (remote != null) {
            return remote.isBusy();
        }
        Hold h = getOwnerVolatile();
        return h != null && h != RETIRED || waiting > 0 || queuedEntrants > 0;
    }

    /**
     * A snapshot row of JDK types only: {identityHash, typeName, ownerClass (Long, 0 = free), depth,
     * acting (String), waiterClasses (long[]), entrantClasses (long[]), remotePeer (String or null),
     * leaseRemainingMillis (Long, -1 if none), suspendedHolds (Integer)}.
     */
    Object[] snapshot() {
        if (remote != null) {
            return remote.snapshot(identityHash, null);
        }
        synchronized (this) {
            Hold h = getOwnerVolatile();
            long[] waiters = waiterClassesLocked();
            long[] queued = entrantClassesLocked();
            int suspended = 0;
            for (Activation a = activations; a != null; a = a.next) {
                suspended++;
            }
            String peer = null;
            long leaseMillis = -1L;
            if (h != null && h.actor instanceof LeaseActor lease) {
                peer = lease.peer;
                leaseMillis = Math.max(0L, lease.remainingNanos() / 1_000_000L);
            }
            // depth is owner-confined; read here it may be a moment stale, which a dump tolerates
            return new Object[] {identityHash, typeName, h == null ? 0L : h.threadClass, h == null ? 0 : depth,
                    h == null ? "" : h.actor.toString(), waiters, queued, peer, leaseMillis, suspended};
        }
    }

    // ---- diagnostics (issue 17): read by DiagnosticRows ----

    /**
     * This monitor's part of the wait-for graph, in JDK types (see {@link DiagnosticRows#emulatedRows()} for
     * the columns); null for a stub's monitor (its client state is read from {@link #remote}). Read under the
     * queue lock; the owner's depth is owner-confined and may be a moment stale, which a dump tolerates.
     */
    Object[] waitForRow() {
        if (remote != null) {
            return null;
        }
        synchronized (this) {
            Hold h = getOwnerVolatile();
            Entrant[] queued = entrantsLocked();
            Thread[] entrantThreads = new Thread[queued.length];
            long[] entrantClasses = new long[queued.length];
            boolean[] entrantOrphans = new boolean[queued.length];
            for (int i = 0; i < queued.length; i++) {
                entrantThreads[i] = queued[i].thread;
                entrantClasses[i] = queued[i].threadClass;
                entrantOrphans[i] = queued[i].orphan;
            }
            WaitNode[] waiters = waitersLocked();
            Thread[] waiterThreads = new Thread[waiters.length];
            long[] waiterClasses = new long[waiters.length];
            for (int i = 0; i < waiters.length; i++) {
                waiterThreads[i] = waiters[i].thread;
                waiterClasses[i] = waiters[i].threadClass;
            }
            String peer = h != null && h.actor instanceof LeaseActor lease ? lease.peer : null;
            return new Object[] {identityHash, typeName, h == null ? 0L : h.threadClass,
                    h == null ? null : h.actor.thread, h == null ? "" : h.actor.toString(), peer,
                    h == null ? 0 : depth, entrantThreads, entrantClasses, entrantOrphans, waiterThreads, waiterClasses};
        }
    }
}
