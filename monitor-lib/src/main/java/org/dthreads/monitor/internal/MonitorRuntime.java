package org.dthreads.monitor.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.dthreads.ThreadClass;
import org.dthreads.internal.KernelLink;
import org.dthreads.internal.RateLimitedLog;

/**
 * The per-JVM monitor runtime: the static operations behind {@link org.dthreads.monitor.Monitors},
 * {@link org.dthreads.monitor.OutgoingCalls}, {@link org.dthreads.monitor.MonitorDump} and
 * {@link org.dthreads.monitor.RemoteMonitorSite}.
 *
 * <h2>One per JVM</h2>
 * Every public method takes and returns JDK types only, so the public classes of a second copy of
 * monitor-lib (child-first class loader, or the application class path next to the agent's bootstrap copy)
 * bind to the bootstrap copy's methods through {@link org.dthreads.internal.BootDelegation}: one monitor
 * table per JVM. Nothing else should call this class.
 *
 * <h2>Failures</h2>
 * Only the exceptions the JVM itself throws for monitor operations reach the caller: NPE, IAE, IMSE,
 * InterruptedException. {@link #exit} never throws anything but NPE and IMSE: see its comment.
 * Everything else is logged through {@link RateLimitedLog}.
 */
public final class MonitorRuntime {
    static final RateLimitedLog LOG = RateLimitedLog.forClass(MonitorRuntime.class);
    static final MonitorTable TABLE = new MonitorTable();

    /** Threads blocked in outgoing remote calls, for interrupt routing. */
    private static final Map<Thread, Actor> SUSPENDED = new ConcurrentHashMap<>();
    /** Pending emulated waits by class, for interrupt routing. */
    private static final Map<Long, Set<WaitNode>> WAITS_BY_CLASS = new ConcurrentHashMap<>();
    /** Monitors where orphans of a class are parked, woken when a thread of the class suspends. */
    private static final Map<Long, Set<Monitor>> ORPHANS_BY_CLASS = new ConcurrentHashMap<>();
    /** How many suspended actors keep an interrupt for their class: lets waits skip the look-up. */
    private static final java.util.concurrent.atomic.AtomicInteger PENDING_CLASS_INTERRUPTS =
            new java.util.concurrent.atomic.AtomicInteger();

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
        if (LostExits.pendingRepairs) {
            LostExits.settleQuietly();
        }
        long cls = KernelLink.currentClass();
        Monitor m = me.cachedKey == key ? me.cachedMonitor : lookupForEnter(me, key);
        if (!m.tryEnterFast(me, cls, key)) {
            if (m.remote != null) {
                m.remote.enter(key, cls); // a stub: its owner is a sentinel, so the fast path always fails
                return;
            }
            m.enterSlow(me, cls, key);
        }
    }

    private static Monitor lookupForEnter(Actor me, Object key) {
        Monitor m = TABLE.getOrCreate(key);
        me.cachedKey = key;
        me.cachedMonitor = m;
        return m;
    }

    /**
     * {@code monitorexit} on an emulated object. Never throws anything but NPE (null key) and IMSE (the
     * class does not hold the monitor): javac's handler covering a {@code monitorexit} also covers its own
     * exit call and would loop for ever on any exception thrown here. A failure inside (a
     * {@link StackOverflowError} on a deep stack, an {@link OutOfMemoryError}) is recovered: the exit
     * records, in the thread's {@link Actor}, whether its committing write happened; if not it is retried
     * at once, and if the retry fails too the level is recorded as a debt that the thread's next monitor
     * operation (the enclosing frame's exit, with more stack) pays. Either way the monitor ends up free.
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
            if (LostExits.pendingRepairs) {
                LostExits.settleQuietly();
            }
            long cls = KernelLink.currentClass();
            m = me.cachedKey == key ? me.cachedMonitor : TABLE.get(key);
            if (m == null || !m.exit(me, cls)) {
                if (m != null && m.remote != null && m.remote.exit(key, cls)) {
                    me.exitCommitted = true;
                    return;
                }
                throw notOwner();
            }
        } catch (IllegalMonitorStateException e) {
            throw e;
        } catch (Throwable t) {
            try {
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
     * {@code Object.wait}. {@code wait()} is {@code waitFor(o, 0, 0)}.
     */
    public static void waitFor(Object key, long timeoutMillis, int nanos) throws InterruptedException {
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
            remoteOf(key).await(key, KernelLink.currentClass(), timeoutMillis, nanos);
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
        if (LostExits.pendingRepairs) {
            LostExits.settleQuietly(); // before the depth is saved (see LostExits)
        }
        Monitor m = TABLE.get(key);
        int begun = m == null ? Monitor.NOT_OWNER : m.beginOwnerOperation(me, cls);
        if (begun == Monitor.NOT_OWNER) {
            throw notOwner();
        }
        if (Thread.interrupted() || takeClassInterrupt(cls)) {
            m.endTakeOver(me, begun);
            throw new InterruptedException();
        }
        if (m.awaitFor(me, cls, key, timeoutNanos, begun) == Monitor.INTERRUPTED) {
            throw new InterruptedException();
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
        if (LostExits.pendingRepairs) {
            LostExits.settleQuietly();
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
        Monitor m = TABLE.get(key);
        return m != null && m.holdsFor(KernelLink.currentClass());
    }

    /**
     * {@code t.interrupt()} as rewritten code calls it. A thread that is not in an outgoing remote call is
     * simply interrupted. A thread suspended in an outgoing call stands for its class, whose activity is
     * elsewhere: the interrupt goes to the class's emulated wait on this site if there is one (a callback
     * thread waiting for that class is that logical thread, and throws {@code InterruptedException}); if
     * there is none it is kept for the class, taken by the next wait of the class on this site, or, if
     * none comes, given back to {@code t} when its call returns. So one interrupt is delivered once, as in
     * the single-threaded program. Forwarding it to the sites the call went to is the adapters' part (a
     * later issue).
     */
    public static void interrupt(Thread t) {
        Actor suspended = SUSPENDED.get(t);
        if (suspended == null) {
            t.interrupt();
            return;
        }
        try {
            long cls = suspended.outgoingClass;
            if (interruptWaitOf(cls, t)) {
                return;
            }
            if (suspended.classInterruptPending.compareAndSet(false, true)) {
                PENDING_CLASS_INTERRUPTS.incrementAndGet();
            }
            Object target = suspended.outgoingTarget;
            if (target != null) {
                forwardAsync(suspended, target, cls);
            }
            if (!SUSPENDED.containsKey(t) && suspended.classInterruptPending.compareAndSet(true, false)) {
                // the call returned meanwhile: deliver to the thread itself
                PENDING_CLASS_INTERRUPTS.decrementAndGet();
                t.interrupt();
            }
        } catch (Throwable e) {
            LOG.error("interrupt-routing-failed", "dthreads: routing an interrupt to emulated waits failed: " + e);
            t.interrupt();
        }
    }

    // ---- cross-site interrupts ----

    /** How many sites an interrupt is forwarded through at most (a guard against cycles). */
    static final int INTERRUPT_HOPS = 32;
    static final long DELIVERED = 1L;
    static final long NOT_DELIVERED = 0L;

    private static final java.util.concurrent.ExecutorService FORWARDERS =
            java.util.concurrent.Executors.newCachedThreadPool(daemonThreads("dthreads-interrupt-forward"));

    /** Threads of the runtime's background work (lease renewal and reaping, interrupt forwarding): daemons. */
    static java.util.concurrent.ThreadFactory daemonThreads(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * Sends the interrupt of {@code cls} along the outgoing call of {@code suspended} on a daemon thread
     * (an interrupt must not block the interrupting thread on the network). If a wait down the chain took
     * it, the interrupt kept here is withdrawn; the suspended thread's {@code end()} waits for the outcome,
     * so the interrupt is delivered once: as InterruptedException there, or as this thread's status.
     */
    private static void forwardAsync(Actor suspended, Object target, long cls) {
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        suspended.interruptForward = done;
        try {
            FORWARDERS.execute(() -> {
                try {
                    if (forward(target, cls, INTERRUPT_HOPS) == DELIVERED
                            && suspended.classInterruptPending.compareAndSet(true, false)) {
                        PENDING_CLASS_INTERRUPTS.decrementAndGet();
                    }
                } finally {
                    done.countDown();
                }
            });
        } catch (RuntimeException e) {
            done.countDown();
        }
    }

    /** One forward to the site of {@code target}; DELIVERED if a wait of {@code cls} there or beyond took it. */
    private static long forward(Object target, long cls, int hops) {
        if (hops <= 0) {
            return NOT_DELIVERED;
        }
        org.dthreads.monitor.RemoteMonitorTransport transport = org.dthreads.monitor.RemoteMonitors.transportFor(target);
        if (transport == null) {
            return NOT_DELIVERED;
        }
        try {
            return transport.call(target, org.dthreads.monitor.RemoteMonitorSite.INTERRUPT, cls, 0L, hops - 1, 0);
        } catch (Exception | Error e) {
            LOG.warn("interrupt-forward-failed", "dthreads: forwarding an interrupt of " + ThreadClass.format(cls)
                    + " to the site of its remote call failed (" + e + "); it is kept for the calling thread");
            return NOT_DELIVERED;
        }
    }

    /**
     * An INTERRUPT request for {@code cls} reached this site: interrupt its wait here, or pass it on along
     * the most recent outgoing call of the class from here (the chain's next hop).
     */
    static long interruptHere(long cls, long hopsLeft) {
        if (interruptWaitOf(cls, null)) {
            return DELIVERED;
        }
        Actor deepest = null;
        for (Actor a : SUSPENDED.values()) {
            if (a.outgoingClass == cls && a.outgoingCalls > 0 && a.outgoingTarget != null
                    && (deepest == null || a.suspendedAtNanos - deepest.suspendedAtNanos > 0)) {
                deepest = a;
            }
        }
        if (deepest == null) {
            return NOT_DELIVERED;
        }
        return forward(deepest.outgoingTarget, cls, (int) Math.min(hopsLeft, INTERRUPT_HOPS));
    }

    /** Takes an interrupt kept for {@code cls} (see {@link #interrupt}); true if there was one. */
    static boolean takeClassInterrupt(long cls) {
        if (PENDING_CLASS_INTERRUPTS.get() == 0) {
            return false;
        }
        for (Actor a : SUSPENDED.values()) {
            if (a.outgoingClass == cls && a.classInterruptPending.compareAndSet(true, false)) {
                PENDING_CLASS_INTERRUPTS.decrementAndGet();
                return true;
            }
        }
        return false;
    }

    // ================= hooks for the adapters =================

    /** The calling thread is about to block in an outgoing remote call for its current class. */
    public static void beginOutgoingCall() {
        beginOutgoingCall(null);
    }

    /**
     * The calling thread is about to block in an outgoing remote call to {@code target} (a stub an
     * adapter's monitor transport handles, or null): an interrupt of the thread is forwarded there.
     */
    public static void beginOutgoingCall(Object target) {
        try {
            Actor me = Actor.current();
            long cls = KernelLink.currentClass();
            if (me.outgoingCalls == 0) {
                me.outgoingTarget = target;
                me.suspendedAtNanos = System.nanoTime();
            }
            me.beginOutgoingCall(cls);
            SUSPENDED.put(me.thread, me);
            if (!ORPHANS_BY_CLASS.isEmpty()) {
                Set<Monitor> monitors = ORPHANS_BY_CLASS.get(cls);
                if (monitors != null) {
                    for (Monitor m : monitors) {
                        m.wakeOrphans();
                    }
                }
            }
        } catch (Throwable t) {
            LOG.error("outgoing-begin-failed", "dthreads: recording an outgoing call failed: " + t);
        }
    }

    /** The outgoing call begun by {@link #beginOutgoingCall} returned or failed. */
    public static void endOutgoingCall() {
        try {
            Actor me = Actor.current();
            if (!me.endOutgoingCall()) {
                LOG.warn("outgoing-end-unbalanced", "dthreads: OutgoingCalls.end() without begin() on thread '"
                        + me.thread.getName() + "'; ignored");
                return;
            }
            if (me.outgoingCalls == 0) {
                SUSPENDED.remove(me.thread);
                me.outgoingTarget = null;
                java.util.concurrent.CountDownLatch forward = me.interruptForward;
                if (forward != null) {
                    me.interruptForward = null;
                    // the chain may unwind faster than the forward's answer travels back: learn whether a
                    // wait down the chain took the interrupt before deciding to keep it here (bounded)
                    awaitUninterruptibly(forward, 10);
                }
                if (me.classInterruptPending.compareAndSet(true, false)) {
                    PENDING_CLASS_INTERRUPTS.decrementAndGet();
                    Thread.currentThread().interrupt(); // nobody of the class waited meanwhile: it is ours
                }
            }
        } catch (Throwable t) {
            LOG.error("outgoing-end-failed", "dthreads: recording the end of an outgoing call failed: " + t);
        }
    }

    private static void awaitUninterruptibly(java.util.concurrent.CountDownLatch latch, long seconds) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        try {
            for (long left; (left = deadline - System.nanoTime()) > 0; ) {
                try {
                    if (latch.await(left, TimeUnit.NANOSECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Outstanding outgoing calls of the calling thread. */
    public static int outgoingCalls() {
        return Actor.current().outgoingCalls;
    }

    static void waitStarted(WaitNode node) {
        WAITS_BY_CLASS.computeIfAbsent(node.threadClass, c -> ConcurrentHashMap.newKeySet()).add(node);
    }

    static void waitEnded(WaitNode node) {
        Set<WaitNode> set = WAITS_BY_CLASS.get(node.threadClass);
        if (set != null) {
            set.remove(node);
            if (set.isEmpty()) {
                WAITS_BY_CLASS.remove(node.threadClass, set);
            }
        }
    }

    static void orphanBlocked(Actor me, long cls, Monitor m) {
        ORPHANS_BY_CLASS.computeIfAbsent(cls, c -> ConcurrentHashMap.newKeySet()).add(m);
        LOG.warn("orphan-blocked", "dthreads: " + me + " of class " + ThreadClass.format(cls)
                + " blocks on a monitor its class holds through another thread (a nested activation still running"
                + " after this thread's remote call ended, e.g. on a timeout); it proceeds when that activation"
                + " unwinds. See docs/remote-monitors.md, \"Orphans\".");
    }

    static void orphanUnblocked(Actor me, long cls) {
        Set<Monitor> set = ORPHANS_BY_CLASS.get(cls);
        if (set != null) {
            set.removeIf(m -> !m.isBusy());
            if (set.isEmpty()) {
                ORPHANS_BY_CLASS.remove(cls, set);
            }
        }
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

    /** Interrupts a pending emulated wait of {@code cls} at this site (not {@code except}'s); true if there was one. */
    static boolean interruptWaitOf(long cls, Thread except) {
        Set<WaitNode> waits = WAITS_BY_CLASS.get(cls);
        if (waits != null) {
            for (WaitNode w : waits) {
                if (w.thread != except && w.state == WaitNode.WAITING) {
                    w.thread.interrupt();
                    return true;
                }
            }
        }
        return false;
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

    static IllegalMonitorStateException notOwner() {
        return new IllegalMonitorStateException("current thread is not owner");
    }
}
