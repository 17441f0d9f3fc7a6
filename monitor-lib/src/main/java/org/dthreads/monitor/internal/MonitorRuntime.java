package org.dthreads.monitor.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.dthreads.internal.KernelLink;
import org.dthreads.internal.RateLimitedLog;

/**
 * The per-JVM monitor runtime's entry points: the static operations behind {@link org.dthreads.monitor.Monitors}
 * (what rewritten code calls), {@link org.dthreads.monitor.spi.OutgoingCalls},
 * {@link org.dthreads.monitor.MonitorDump} and {@link org.dthreads.monitor.spi.RemoteMonitorSite}. The work is
 * done by the classes of one job each:
 * <ul>
 *   <li>{@link Monitor} (ownership), {@link WaitSet}, {@link EntrantQueue}: one emulated monitor;</li>
 *   <li>{@link MonitorSlots}: object -> monitor for the rewritten classes that carry a monitor slot, and
 *       {@link ThinLock}: the state such an object's monitor has in its slot until it is first contended;
 *       {@link MonitorTable}: for every other object (and the slot look-up behind its {@code get});</li>
 *   <li>{@link LostExits}: exits a stack overflow interrupted, paid later;</li>
 *   <li>{@link InterruptRouting}: interrupts of threads in outgoing calls, outgoing-call bookkeeping;</li>
 *   <li>{@link RemoteLeases}, {@link LeaseActor}: the site side of remote monitors;
 *       {@link RemoteReference}: the client side.</li>
 * </ul>
 *
 * <h2>What guards what</h2>
 * This class has no mutable state of its own: {@link #TABLE} and {@link #LOG} are thread-safe, and each
 * operation acts on one {@link Monitor} whose design comment says how its state is guarded and ordered.
 *
 * <h2>One per JVM</h2>
 * Every public method takes and returns JDK types only, so the public classes of a second copy of
 * monitor-lib (child-first class loader, or the application class path next to the agent's bootstrap copy)
 * bind to the bootstrap copy's methods through {@link org.dthreads.internal.BootDelegation}: one monitor
 * table per JVM. Nothing else should call this class.
 *
 * <h2>Failures</h2>
 * For local objects only the exceptions the JVM itself throws for monitor operations reach the caller:
 * NPE, IAE, IMSE, InterruptedException. For a stub (a remote monitor) {@link org.dthreads.monitor.RemoteMonitorException}
 * too, when its site cannot be reached or refuses (see {@code docs/remote-monitors.md}). {@link #exit} never
 * throws anything but NPE and IMSE: see its comment. Everything else is logged through {@link RateLimitedLog}.
 */
public final class MonitorRuntime {
    static final RateLimitedLog LOG = RateLimitedLog.forClass(MonitorRuntime.class);
    static final MonitorTable TABLE = new MonitorTable();

    static {
        // A class first used deep in a stack (a wait at the end of a recursion) fails to initialize there and
        // stays unusable for good (NoClassDefFoundError): initialize the wait path's classes now.
        try {
            java.lang.invoke.MethodHandles.Lookup lookup = java.lang.invoke.MethodHandles.lookup();
            lookup.ensureInitialized(StackHeadroom.class);
            lookup.ensureInitialized(NativeMarks.class);
            lookup.ensureInitialized(InterruptRouting.class);
            lookup.ensureInitialized(WaitNode.class);
            lookup.ensureInitialized(MonitorSlots.class); // reached by every exit (TABLE.get)
            lookup.ensureInitialized(BusySlotMonitors.class);
            lookup.ensureInitialized(HeldSlotMonitors.class);
        } catch (IllegalAccessException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private MonitorRuntime() {}

    // ================= entry points for rewritten code =================

    /**
     * The mode test at the entry of every rewritten block: emulated (locally or, for a stub, at its site)
     * or native. For a stub class the answer is per object, from its {@link RemoteReference}.
     */
    public static boolean isEmulated(Object o) {
        return modeOf(Objects.requireNonNull(o)) != MonitorModes.NATIVE;
    }

    /**
     * {@link MonitorModes#NATIVE}, {@link MonitorModes#EMULATED} or {@link MonitorModes#REMOTE} for {@code key}
     * (not null), with a stub class's per-object answer: a proxy no transport reaches keeps the JVM's monitor.
     * One class-value look-up for local objects.
     */
    private static int modeOf(Object key) {
        int mode = MonitorModes.mode(key);
        return mode == MonitorModes.REMOTE && !remoteOf(key).isEmulated() ? MonitorModes.NATIVE : mode;
    }

    /** The client state of a stub ({@link MonitorModes#REMOTE} key). */
    private static RemoteReference remoteOf(Object key) {
        return TABLE.getOrCreate(key).remote;
    }

    /** {@code monitorenter} on an emulated object. The caller (rewritten code) has checked the mode. */
    public static void enter(Object key) {
        if (key == null) {
            throw new NullPointerException("Cannot enter synchronized block: the monitor is null");
        }
        Actor me = Actor.current();
        if (LostExits.pendingRepairs && !LostExits.settleQuietly()) {
            throw unsettled();
        }
        long cls = me.currentClass();
        MonitorTable.Binding c = me.cached;
        Monitor m;
        if (c.key == key) {
            m = c.monitor;
        } else {
            MonitorSlots.Slot slot = MonitorSlots.slotOf(key);
            if (slot == null) {
                m = bindForEnter(me, key);
            } else if (MonitorSlots.THIN && ThinLock.tryEnter(slot, key, me, cls)) {
                return; // free or re-entered without contention: the slot's thin value says so
            } else {
                m = TABLE.slotMonitor(slot, key);
            }
        }
        while (!m.tryEnterFast(me, cls, key)) {
            if (m.remote != null) {
                m.remote.enter(key, cls); // a stub: its owner is a sentinel, so the fast path always fails
                return;
            }
            noteIfSlotted(key, m); // about to block: diagnostics must be able to list it
            if (m.enterSlow(me, cls, key)) {
                break;
            }
            m = lookupForEnter(me, key); // retired by the table's sweep since we looked it up
        }
        if (m.slotOwner != null && m.activeDepth() == 1) {
            try {
                HeldSlotMonitors.of(me).push(key); // a slot monitor acquired from free: listed for diagnostics
            } catch (Throwable unlisted) {
                // a stack overflow or OOM: the enter has happened and must not fail; the hold goes unlisted
            }
        }
    }

    /**
     * The monitor in {@code key}'s slot ({@link MonitorSlots}: never retired, not cached, since the actor's
     * cache would keep the object alive), else its table binding, cached in the actor.
     */
    private static Monitor lookupForEnter(Actor me, Object key) {
        Monitor slotted = TABLE.slotMonitor(key);
        return slotted != null ? slotted : bindForEnter(me, key);
    }

    private static Monitor bindForEnter(Actor me, Object key) {
        MonitorTable.Binding b = TABLE.bind(key);
        me.cached = b;
        return b.monitor;
    }

    /** A slot monitor about to be contended or waited on is listed for diagnostics ({@link BusySlotMonitors}). */
    private static void noteIfSlotted(Object key, Monitor m) {
        if (m.remote == null && MonitorSlots.slotOf(key) != null) {
            BusySlotMonitors.note(m);
        }
    }

    /**
     * {@code monitorexit} on an emulated object. Never throws anything but NPE (null key) and IMSE (the
     * class does not hold the monitor), as {@code monitorexit} (a block's release handler runs the exit again
     * on any exception from the block's own exit). A failure inside (a
     * {@link StackOverflowError} on a deep stack, an {@link OutOfMemoryError}) is recovered: the exit
     * records, in the thread's {@link Actor}, whether its committing write happened; if not it is retried
     * at once, and if the retry fails too the level is recorded in {@link LostExits}, paid by the next
     * monitor operation of any thread. An exit whose call overflows before this method runs is recorded
     * by the rewritten code around the call (see {@link LostExits}).
     */
    public static void exit(Object key) {
        if (key == null) {
            throw new NullPointerException("Cannot exit synchronized block: the monitor is null");
        }
        Actor me = null;
        Monitor m = null;
        try {
            me = Actor.current();
            me.exitCommitted = false; // before any call: a stale true would make a failure look committed
            if (LostExits.pendingRepairs && !LostExits.settleQuietly()) {
                throw LostExits.UNSETTLED; // recorded below: the depth may be being paid by another thread
            }
            long cls = me.currentClass();
            MonitorTable.Binding c = me.cached;
            if (c.key == key) {
                m = c.monitor;
            } else {
                MonitorSlots.Slot slot = MonitorSlots.slotOf(key);
                HeldSlotMonitors held = me.heldSlots;
                // a thin hold of ours is listed (see ThinLock, "Copies"); its index serves the removal after the CAS
                int listed = slot == null || held == null ? -1 : held.indexOfOwn(key);
                if (slot == null) {
                    m = TABLE.get(key);
                } else if (MonitorSlots.THIN && listed >= 0 && ThinLock.tryExit(slot, key, me, cls, held, listed)) {
                    return;
                } else {
                    m = TABLE.slotGet(slot, key); // a thin hold not ours, or inflated: inflated now if still thin
                }
            }
            if (m != null && m.isRetired()) {
                m = TABLE.get(key); // retired while cached: nobody holds it; the key's monitor now, if any
            }
            if (m == null || !m.exit(me, cls)) {
                if (m != null && m.remote != null && m.remote.exit(key, cls)) {
                    me.exitCommitted = true;
                    return;
                }
                throw notOwner();
            }
            if (m.slotOwner != null && me.heldSlots != null && !m.isActiveFor(me, cls)) {
                try {
                    me.heldSlots.remove(key); // no longer acting for it: see HeldSlotMonitors
                } catch (Throwable stale) {
                    // a stack overflow: the exit is committed; the entry stays (readers skip idle monitors)
                }
            }
        } catch (IllegalMonitorStateException e) {
            throw e;
        } catch (Throwable t) {
            try {
                if (t == LostExits.UNSETTLED) {
                    throw t; // no retry: record it
                }
                if (me == null) {
                    me = Actor.current();
                    me.exitCommitted = false;
                }
                LostExits.exitFailed(key, me, m, t);
            } catch (Throwable again) {
                // No calls from here on: monitorenter and array accesses only (see LostExits.record).
                boolean committed = me != null && me.exitCommitted;
                synchronized (LostExits.LOCK) {
                    if (committed) {
                        LostExits.lostWake = m;
                    } else {
                        int free = -1;
                        int i = 0;
                        for (; i < LostExits.SLOTS; i++) {
                            Object k = LostExits.KEYS[i];
                            if (k == key) {
                                break;
                            }
                            if (k == null && free < 0) {
                                free = i;
                            }
                        }
                        if (i < LostExits.SLOTS) {
                            LostExits.LEVELS[i]++;
                        } else if (free >= 0) {
                            LostExits.KEYS[free] = key;
                            LostExits.LEVELS[free] = 1;
                        } else {
                            LostExits.UNRECORDED++;
                        }
                    }
                    LostExits.pendingRepairs = true;
                }
            }
        }
    }

    /**
     * Called by a copy of {@link org.dthreads.monitor.Monitors} that delegates here: {@code levels} exits
     * of {@code key} whose call into {@link #exit} overflowed, recorded in that copy and forwarded now.
     */
    public static void recordLostExits(Object key, int levels) {
        LostExits.record(key, levels);
    }

    /**
     * {@code o.wait(timeoutMillis, nanos)} with the JVM's checks in the JVM's order: NPE, IAE (bad timeout),
     * IMSE (not owner), InterruptedException (interrupt pending). Native-mode objects take the real
     * {@code Object.wait}. {@code wait()} is {@code waitOn(o, 0, 0)}.
     */
    public static void waitOn(Object key, long timeoutMillis, int nanos) throws InterruptedException {
        if (key == null) {
            throw new NullPointerException("Cannot invoke \"Object.wait()\": the monitor is null");
        }
        if (timeoutMillis < 0) {
            throw new IllegalArgumentException("timeout value is negative");
        }
        if (nanos < 0 || nanos > 999_999) {
            throw new IllegalArgumentException("nanosecond timeout value out of range");
        }
        int mode = modeOf(key);
        if (mode == MonitorModes.REMOTE) {
            remoteOf(key).waitOn(key, KernelLink.currentClass(), timeoutMillis, nanos);
            return;
        }
        if (mode == MonitorModes.NATIVE) {
            key.wait(timeoutMillis, nanos);
            return;
        }
        if (nanos > 0 && timeoutMillis < Long.MAX_VALUE) {
            timeoutMillis++; // as Object.wait(long, int) does
        }
        long timeoutNanos = timeoutMillis == 0 ? 0L
                : timeoutMillis >= Long.MAX_VALUE / 1_000_000L ? Long.MAX_VALUE : timeoutMillis * 1_000_000L;
        Actor me = Actor.current();
        waitAs(me, KernelLink.currentClass(), key, timeoutNanos);
    }

    static void waitAs(Actor me, long cls, Object key, long timeoutNanos) throws InterruptedException {
        // fail here, holding the monitor and having changed nothing, if the stack is too short for the wait's
        // release and re-acquire (see StackHeadroom): as Object.wait fails before it releases
        StackHeadroom.ensure();
        if (LostExits.pendingRepairs && !LostExits.settleQuietly()) {
            throw unsettled(); // before the depth is saved (see LostExits)
        }
        Monitor m = TABLE.get(key);
        int begun = m == null ? Monitor.NOT_OWNER : m.beginOwnerOperation(me, cls);
        if (begun == Monitor.NOT_OWNER) {
            throw notOwner();
        }
        if (Thread.interrupted() || InterruptRouting.takeClassInterrupt(cls)) {
            m.endTakeOver(me, begun);
            throw new InterruptedException();
        }
        noteIfSlotted(key, m);
        int outcome = m.waitOn(me, cls, key, timeoutNanos, begun);
        if (outcome == Monitor.INTERRUPTED) {
            throw new InterruptedException();
        }
        if (outcome == Monitor.NOT_OWNER) {
            throw notOwner(); // a remote lease revoked after its check (issue 15 §3)
        }
    }

    public static void notifyOne(Object key) {
        if (key == null) {
            throw new NullPointerException("Cannot invoke \"Object.notify()\": the monitor is null");
        }
        int mode = modeOf(key);
        if (mode == MonitorModes.REMOTE) {
            remoteOf(key).notify(key, KernelLink.currentClass(), false);
            return;
        }
        if (mode == MonitorModes.NATIVE) {
            key.notify();
            return;
        }
        notifyAs(Actor.current(), KernelLink.currentClass(), key, false);
    }

    public static void notifyAll(Object key) {
        if (key == null) {
            throw new NullPointerException("Cannot invoke \"Object.notifyAll()\": the monitor is null");
        }
        int mode = modeOf(key);
        if (mode == MonitorModes.REMOTE) {
            remoteOf(key).notify(key, KernelLink.currentClass(), true);
            return;
        }
        if (mode == MonitorModes.NATIVE) {
            key.notifyAll();
            return;
        }
        notifyAs(Actor.current(), KernelLink.currentClass(), key, true);
    }

    static void notifyAs(Actor me, long cls, Object key, boolean all) {
        if (LostExits.pendingRepairs && !LostExits.settleQuietly()) {
            throw unsettled();
        }
        MonitorSlots.Slot thin = MonitorSlots.thinSlotOf(key);
        ThinLock t = thin == null ? null : MonitorSlots.thinValue(thin, key);
        if (t != null && t.hold.isActive(me, cls) && ThinLock.isGenuine(t, key)) {
            return; // our thin hold: nobody waits on a monitor that was never inflated
        }
        Monitor m = TABLE.get(key);
        int begun = m == null ? Monitor.NOT_OWNER : m.beginOwnerOperation(me, cls);
        if (begun == Monitor.NOT_OWNER) {
            throw notOwner();
        }
        if (all) {
            m.notifyEvery();
        } else {
            m.notifyOne();
        }
        m.endTakeOver(me, begun);
    }

    /** {@code Thread.holdsLock(o)}: whether the calling thread's class owns {@code o}'s monitor. */
    public static boolean holdsLock(Object key) {
        if (key == null) {
            throw new NullPointerException("the monitor is null");
        }
        int mode = modeOf(key);
        if (mode == MonitorModes.REMOTE) {
            return remoteOf(key).holds(key, KernelLink.currentClass());
        }
        if (mode == MonitorModes.NATIVE) {
            return Thread.holdsLock(key);
        }
        if (LostExits.pendingRepairs) {
            LostExits.settleQuietly();
        }
        long cls = KernelLink.currentClass();
        MonitorSlots.Slot thin = MonitorSlots.thinSlotOf(key);
        ThinLock t = thin == null ? null : MonitorSlots.thinValue(thin, key);
        if (t != null) {
            return t.hold.threadClass == cls && ThinLock.isGenuine(t, key);
        }
        Monitor m = TABLE.get(key);
        return m != null && m.holdsFor(cls);
    }

    /**
     * {@code t.interrupt()} as rewritten code calls it: see {@link InterruptRouting#interrupt}.
     */
    public static void interrupt(Thread t) {
        InterruptRouting.interrupt(t);
    }

    /** Threads of the runtime's background work (lease renewal and reaping, interrupt forwarding): daemons. */
    static java.util.concurrent.ThreadFactory daemonThreads(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    // ================= hooks for the adapters (org.dthreads.monitor.spi.OutgoingCalls) =================

    /** The calling thread is about to block in an outgoing remote call for its current class. */
    public static void beginOutgoingCall() {
        InterruptRouting.beginOutgoingCall(null);
    }

    /** See {@link InterruptRouting#beginOutgoingCall(Object)}. */
    public static void beginOutgoingCall(Object target) {
        InterruptRouting.beginOutgoingCall(target);
    }

    /** See {@link InterruptRouting#endOutgoingCall()}. */
    public static void endOutgoingCall() {
        InterruptRouting.endOutgoingCall();
    }

    /** Outstanding outgoing calls of the calling thread. */
    public static int outgoingCalls() {
        return Actor.current().outgoingCalls;
    }

    // ================= dump =================

    /** One row per busy emulated monitor; see {@link Monitor#snapshot()} for the columns. */
    public static List<Object[]> dumpRows() {
        List<Object[]> rows = new ArrayList<>();
        TABLE.forEach(m -> {
            if (m.isBusy()) {
                rows.add(m.snapshot());
            }
        });
        return rows;
    }

    /** Monitors in the table (including idle ones not yet collected); for tests. */
    public static int tableSize() {
        return TABLE.size();
    }

    // ================= remote monitors: the site side (see RemoteLeases) =================

    /** See {@link RemoteLeases#remoteEnter}. */
    public static long remoteEnter(Object key, long cls, String peer, long leaseMillis) {
        return RemoteLeases.remoteEnter(key, cls, peer, leaseMillis);
    }

    /** See {@link RemoteLeases#remoteServe}. */
    public static long remoteServe(Object target, int op, long cls, long token, long arg, int nanos, String peer)
            throws InterruptedException {
        return RemoteLeases.remoteServe(target, op, cls, token, arg, nanos, peer);
    }

    /** See {@link RemoteLeases#remoteRenew}. */
    public static boolean remoteRenew(long token) {
        return RemoteLeases.remoteRenew(token);
    }

    /** See {@link RemoteLeases#remoteExit}. */
    public static void remoteExit(long token) {
        RemoteLeases.remoteExit(token);
    }

    /** See {@link RemoteLeases#remoteWait}. */
    public static void remoteWait(long token, long timeoutMillis, int nanos) throws InterruptedException {
        RemoteLeases.remoteWait(token, timeoutMillis, nanos);
    }

    /** See {@link RemoteLeases#remoteNotify}. */
    public static void remoteNotify(long token, boolean all) {
        RemoteLeases.remoteNotify(token, all);
    }

    /** See {@link RemoteLeases#remoteCancel}. */
    public static void remoteCancel(long token) {
        RemoteLeases.remoteCancel(token);
    }

    /** See {@link RemoteLeases#remoteHolds}. */
    public static boolean remoteHolds(long token) {
        return RemoteLeases.remoteHolds(token);
    }

    /**
     * An operation whose settlement of lost exits failed (the stack is exhausted) fails before it touches a
     * depth, which another thread may be paying (see {@link LostExits}); its call could have overflowed anyway.
     */
    private static StackOverflowError unsettled() {
        return new StackOverflowError("dthreads: no stack left to settle lost monitor exits");
    }

    static IllegalMonitorStateException notOwner() {
        return new IllegalMonitorStateException("current thread is not owner");
    }

    // ================= diagnostics (issue 17) =================

    /** Threads blocked in outgoing remote calls, for the wait-for graph (see {@link DiagnosticRows}). */
    static java.util.Collection<Actor> suspendedActors() {
        return InterruptRouting.SUSPENDED.values();
    }
}

