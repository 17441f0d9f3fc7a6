package org.dthreads.monitor.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The emulated monitor of one object: owned by a thread equivalence class, re-entrant, with a wait set.
 * This class is the ownership: its state, the uncontended enter and exit, the release of a level and the
 * hand-back to a suspended hold, retirement and inflation. Its base classes hold the {@link WaitSet} and the
 * {@link EntrantQueue}, in the same object so the hot paths pay no indirection. The slower jobs are static
 * helpers over this state, each with its own design comment: {@link MonitorContention} (the slow path of enter,
 * take-over, orphans, parking), {@link MonitorWaits} ({@code Object.wait}), {@link MonitorLeases} (a remote
 * holder's exit and notify, lease revocation), {@link MonitorRows} (diagnostics rows), and
 * {@link LostExits} (paying lost exits). They reach the state through the accessors named by access mode below.
 * The uncontended paths ({@link #tryEnterFast}, an active actor's {@link #exit}) use the fields directly; only
 * their slow branches (a lease, an actor that is not the active one) call into the helpers.
 *
 * <h2>State and what guards it</h2>
 * <ul>
 *   <li>{@link #owner}: the {@link Hold} (class + acting actor) or {@code null} when free. Changed only by
 *       CAS from {@code null} (acquire) or by the active actor (release, hand-over to a nested activation
 *       and back). Read and written only through its accessors named by access mode
 *       ({@link #getOwnerVolatile}, {@link #casOwner}, {@link #setOwnerVolatile}): every change is a volatile
 *       write; every ownership check is a volatile read. This is
 *       the only field the uncontended paths touch besides {@link #depth}.</li>
 *   <li>{@link #depth}, {@link #activations}, {@link #pinnedKey}: guarded by ownership. Only the active
 *       actor's thread reads or writes them (the helpers through the {@code get/set...Plain} accessors), or a
 *       thread acting for it under the queue lock (a lease's revocation, a lost exit's payment; dumps read them
 *       there, perhaps a moment stale). Ownership passes with a volatile write of {@code owner}
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
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            OWNER = lookup.findVarHandle(Monitor.class, "owner", Hold.class);
            // the helpers, initialized with it: a class first used deep in a stack (a contended enter or a wait at
            // the end of a recursion) fails to initialize there and stays unusable for good
            lookup.ensureInitialized(MonitorContention.class);
            lookup.ensureInitialized(MonitorWaits.class);
            lookup.ensureInitialized(MonitorLeases.class);
            lookup.ensureInitialized(MonitorRows.class);
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
    static final Hold RETIRED = new Hold(new Actor(null), 0L);
    /**
     * The owner of a monitor inflated from a thin slot value until {@link #resolveInflation} says whose it is (see
     * {@link ThinLock}, "Copies"): no actor matches it and its class is none, so everyone blocks meanwhile.
     */
    static final Hold INFLATING = new Hold(new Actor(null), 0L);
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

    boolean casOwner(Hold expected, Hold update) {
        return OWNER.compareAndSet(this, expected, update);
    }

    void setOwnerVolatile(Hold h) {
        owner = h;
    }

    // ---- plain accessors of the owner-confined state, for the helpers (the hot paths use the fields) ----

    int getDepthPlain() {
        return depth;
    }

    void setDepthPlain(int d) {
        depth = d;
    }

    Activation getActivationsPlain() {
        return activations;
    }

    void setActivationsPlain(Activation a) {
        activations = a;
    }

    void setPinnedKeyPlain(Object key) {
        pinnedKey = key;
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
     * Returns false (not entered) only if the monitor was retired, or {@code me} is a lease that was revoked:
     * the caller looks the key up again. Spins, queues and parks in {@link MonitorContention#enterSlow}.
     */
    boolean enterSlow(Actor me, long cls, Object key) {
        return MonitorContention.enterSlow(this, me, cls, key);
    }

    // ---- exit ----

    /**
     * Releases one level. Returns false (changing nothing) if {@code cls} does not hold the monitor through
     * {@code me} and {@code me} has no frozen levels here; blocks if it has (orphan) until they come back.
     */
    boolean exit(Actor me, long cls) {
        if (me instanceof LeaseActor lease) {
            return MonitorLeases.exitLease(this, lease, cls);
        }
        Hold h = getOwnerVolatile();
        if (h == null || !h.isActive(me, cls)) {
            if (!MonitorContention.awaitActivity(this, me, cls, false)) {
                return false;
            }
        }
        releaseOne(me);
        return true;
    }

    /** We are the active actor. Each path's last write commits the exit; nothing after it can fail. */
    void releaseOne(Actor me) {
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
    void handBackIfEmpty(Actor me) {
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

    /** The re-entry depth; owner-confined, so meaningful to the active actor only (1: just acquired from free). */
    int activeDepth() {
        return depth;
    }

    boolean isActiveFor(Actor me, long cls) {
        Hold h = getOwnerVolatile();
        return h != null && h.isActive(me, cls);
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
        return MonitorContention.awaitActivityOutcome(this, me, cls, true);
    }

    void endTakeOver(Actor me, int begun) {
        if (begun == TOOK_OVER) {
            handBackIfEmpty(me);
        }
    }

    /** {@code Object.wait}: see {@link MonitorWaits#waitOn} (NOTIFIED, TIMED_OUT, INTERRUPTED or NOT_OWNER). */
    int waitOn(Actor me, long cls, Object key, long timeoutNanos, int begun) {
        return MonitorWaits.waitOn(this, me, cls, key, timeoutNanos, begun);
    }

    /** Whether {@code cls} owns the monitor (through any of its actors): {@code holdsLock}. */
    boolean holdsFor(long cls) {
        Hold h = getOwnerVolatile();
        return h != null && h.threadClass == cls;
    }

    // ---- remote leases: see MonitorLeases ----

    /** Revokes {@code lease} if it expired and holds the monitor; see {@link MonitorLeases#revokeIfExpired}. */
    boolean revokeIfExpired(LeaseActor lease) {
        return MonitorLeases.revokeIfExpired(this, lease);
    }

    /** A remote holder's notify under its lease; see {@link MonitorLeases#notifyForLease}. */
    boolean notifyForLease(LeaseActor lease, long cls, boolean all) {
        return MonitorLeases.notifyForLease(this, lease, cls, all);
    }

    // ---- dump and diagnostics (issue 17): rows built by MonitorRows ----

    /** Whether the monitor is worth a line in a dump: owned, waited on or queued. */
    boolean isBusy() {
        if (remote != null) {
            return remote.isBusy();
        }
        Hold h = getOwnerVolatile();
        return h != null && h != RETIRED || waiting > 0 || queuedEntrants > 0;
    }

    /** The dump's row; see {@link MonitorRows#snapshot} for the columns. */
    Object[] snapshot() {
        return MonitorRows.snapshot(this);
    }

    /** The wait-for graph's row, read by {@link DiagnosticRows}; see {@link MonitorRows#waitForRow}. */
    Object[] waitForRow() {
        return MonitorRows.waitForRow(this);
    }
}
