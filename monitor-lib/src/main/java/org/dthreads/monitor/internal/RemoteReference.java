package org.dthreads.monitor.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.dthreads.ThreadClass;
import org.dthreads.monitor.RemoteMonitorException;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.dthreads.monitor.spi.RemoteMonitorTransport;
import org.dthreads.monitor.spi.RemoteMonitors;

/**
 * The client side of the remote-monitor protocol for one stub: what {@link Monitor#remote} points to when
 * the monitor's key is a remote reference. Every monitor operation on the stub goes to the object's site
 * through the {@link RemoteMonitorTransport} that reaches it; nothing here locks the stub itself.
 *
 * <h2>Kinds</h2>
 * Decided once, when the stub's {@link Monitor} is created: {@link #REMOTE} (a transport handles it),
 * {@link #UNREACHABLE} (a JRMP or CORBA stub no registered transport handles: every operation fails with
 * {@link RemoteMonitorException}, and the registry is asked again each time), or {@link #NATIVE} (a dynamic
 * proxy of a {@code Remote} interface that is not a stub, e.g. an application's decorator: it keeps the
 * JVM's monitor, as before dthreads).
 *
 * <h2>State and what guards it</h2>
 * {@link #leases}: per thread class holding the remote monitor through this stub, its {@link ClientLease}
 * (token and the class's local re-entry depth). Guarded by this object's lock, never held during a remote
 * call. Only the first {@code enter} of a class goes to the site, and only its last {@code exit}; nested
 * levels are counted here. A class is one logical thread: its physical threads (the home thread and the
 * callbacks of its chain) run one at a time, handing over through the remote calls between them, which
 * order their accesses to {@code depth}. {@link ClientLease#lost} is volatile: the renewal thread sets it.
 *
 * <p>The monitor table holds its keys weakly, so this object keeps no reference to the stub; a lease does,
 * while held, so the stub cannot be collected while a class holds its remote monitor.
 */
final class RemoteReference {
    static final int NATIVE = 0;
    static final int REMOTE = 1;
    static final int UNREACHABLE = 2;

    /** Lease the client asks for (clamped by {@link LeaseBounds}); renewed at a third of it while held. */
    static final long LEASE_MILLIS = leaseMillis();

    private static final String ROIH = "java.rmi.server.RemoteObjectInvocationHandler";

    private final int kind;
    private final String typeName;
    private volatile RemoteMonitorTransport transport;
    private final Map<Long, ClientLease> leases = new HashMap<>(4);
    /** Classes with an ENTER or WAIT call pending, for the dump. Guarded by this. */
    private final List<Long> entering = new ArrayList<>(2);
    private final List<Long> waiting = new ArrayList<>(2);

    private RemoteReference(int kind, String typeName, RemoteMonitorTransport transport) {
        this.kind = kind;
        this.typeName = typeName;
        this.transport = transport;
    }

    /** For a key of a stub class ({@link MonitorModes#isRemoteType}). Must not block: called under a table lock. */
    static RemoteReference of(Object key) {
        RemoteMonitorTransport t = RemoteMonitors.transportFor(key);
        if (t != null) {
            return new RemoteReference(REMOTE, key.getClass().getName(), t);
        }
        return new RemoteReference(isKnownStub(key) ? UNREACHABLE : NATIVE, key.getClass().getName(), null);
    }

    private static boolean isKnownStub(Object key) {
        if (!java.lang.reflect.Proxy.isProxyClass(key.getClass())) {
            return true; // a RemoteStub or an ObjectImpl subclass
        }
        try {
            return java.lang.reflect.Proxy.getInvocationHandler(key).getClass().getName().equals(ROIH);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Whether the stub's monitor operations go to the site (or fail); false: the JVM's monitor. */
    boolean isEmulated() {
        return kind != NATIVE;
    }

    // ---------------- operations, on the calling application thread ----------------

    void enter(Object key, long cls) {
        synchronized (this) {
            ClientLease held = leases.get(cls);
            if (held != null) {
                if (held.lost) {
                    throw lost(held, "enter");
                }
                held.depth++;
                return;
            }
            entering.add(cls);
        }
        RemoteMonitorTransport t;
        long token;
        try {
            t = transport(key);
            token = callUninterruptibly(t, key, RemoteMonitorSite.ENTER, cls, 0L, LEASE_MILLIS, 0);
        } finally {
            synchronized (this) {
                entering.remove(Long.valueOf(cls));
            }
        }
        ClientLease lease;
        synchronized (this) {
            ClientLease held = leases.get(cls);
            if (held != null && held.token == token && !held.lost) {
                held.depth++; // another thread of the class entered meanwhile: the site counted both
                return;
            }
            lease = new ClientLease(key, cls, token, t);
            leases.put(cls, lease);
        }
        Renewal.schedule(lease);
    }

    /**
     * One level of {@code cls}'s hold; false if the class holds no lease through this stub (the caller throws
     * IMSE). Otherwise never throws: an exit runs in release handlers, so a failed EXIT is logged.
     */
    boolean exit(Object key, long cls) {
        ClientLease lease;
        synchronized (this) {
            lease = leases.get(cls);
            if (lease == null) {
                return false; // not owner
            }
            if (--lease.depth > 0) {
                return true;
            }
            leases.remove(cls);
        }
        lease.stopRenewal();
        if (lease.lost) {
            MonitorRuntime.LOG.error("remote-exit-lost", "dthreads: " + ThreadClass.format(cls) + " left a synchronized"
                    + " block on " + describe(key) + " whose lease had been lost; exclusion was not guaranteed at the end"
                    + " of that block");
            return true;
        }
        try {
            callUninterruptibly(lease.transport, key, RemoteMonitorSite.EXIT, cls, lease.token, 0L, 0);
        } catch (RuntimeException e) {
            MonitorRuntime.LOG.error("remote-exit-failed", "dthreads: releasing the remote monitor of " + describe(key)
                    + " for " + ThreadClass.format(cls) + " failed (" + e + "); the site releases it when the lease of "
                    + LEASE_MILLIS + " ms expires");
        }
        return true;
    }

    void waitOn(Object key, long cls, long timeoutMillis, int nanos) throws InterruptedException {
        long token = tokenFor(cls, "wait");
        RemoteMonitorTransport t = transport(key);
        synchronized (this) {
            waiting.add(cls);
        }
        try {
            call(t, key, RemoteMonitorSite.WAIT, cls, token, timeoutMillis, nanos);
        } finally {
            synchronized (this) {
                waiting.remove(Long.valueOf(cls));
            }
        }
    }

    void notify(Object key, long cls, boolean all) {
        long token = tokenFor(cls, all ? "notifyAll" : "notify");
        callUninterruptibly(transport(key), key, all ? RemoteMonitorSite.NOTIFY_ALL : RemoteMonitorSite.NOTIFY, cls,
                token, 0L, 0);
    }

    boolean holds(Object key, long cls) {
        synchronized (this) {
            ClientLease held = leases.get(cls);
            if (held != null) {
                return !held.lost;
            }
        }
        // the class may hold it through a call chain (a synchronized method of the object up the chain)
        return callUninterruptibly(transport(key), key, RemoteMonitorSite.HOLDS, cls, 0L, 0L, 0) != 0L;
    }

    private long tokenFor(long cls, String what) {
        synchronized (this) {
            ClientLease held = leases.get(cls);
            if (held == null) {
                return 0L; // the site decides: the class may own the monitor through a call chain
            }
            if (held.lost) {
                throw lost(held, what);
            }
            return held.token;
        }
    }

    private IllegalMonitorStateException lost(ClientLease lease, String what) {
        return new IllegalMonitorStateException("dthreads: cannot " + what + " on " + lease.description + ": the lease of "
                + ThreadClass.format(lease.threadClass) + " on that remote monitor was lost (not renewed within "
                + LEASE_MILLIS + " ms); the site released it and another class may have acquired it");
    }

    private RemoteMonitorTransport transport(Object key) {
        RemoteMonitorTransport t = transport;
        if (t != null) {
            return t;
        }
        t = RemoteMonitors.transportFor(key);
        if (t == null && discoverTransports(key)) {
            t = RemoteMonitors.transportFor(key);
        }
        if (t == null) {
            throw new RemoteMonitorException("dthreads: no adapter can carry monitor operations on the remote reference "
                    + typeName + " to its site; synchronized/wait/notify on a stub need the dthreads adapter of its"
                    + " protocol (the agent for JRMP, DThreadsOrbInitializer for IIOP). Not locking the local stub.");
        }
        transport = t;
        return t;
    }

    /** The adapters' transports, by name: each has a static {@code register()}. */
    private static final String[] KNOWN_TRANSPORTS = {"org.dthreads.rmi.internal.JrmpMonitorTransport",
            "org.dthreads.iiop.internal.IiopMonitorTransport"};

    /**
     * Without the agent nothing registers a transport up front (the agent does, and so do
     * {@code DThreadsRmi} and {@code DThreadsOrbInitializer}): an application run with build-time rewriting
     * may reach its first stub before any of them. Loads the adapters' transports through the stub's class
     * loader (where the adapters are, in that mode) and registers them. Not under any lock; never throws.
     */
    private static boolean discoverTransports(Object key) {
        boolean any = false;
        ClassLoader loader = key.getClass().getClassLoader();
        for (String name : KNOWN_TRANSPORTS) {
            try {
                Class<?> c = Class.forName(name, true, loader);
                c.getMethod("register").invoke(null);
                any = true;
            } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                // that adapter (or its ORB) is not on this class path
            }
        }
        return any;
    }

    String describe(Object key) {
        RemoteMonitorTransport t = transport;
        if (t != null) {
            try {
                return t.describe(key);
            } catch (RuntimeException e) {
                // fall through
            }
        }
        return typeName;
    }

    // ---------------- calls ----------------

    /** One call, with the calling thread marked as in an outgoing call (its class's callbacks may act for it). */
    private static long call(RemoteMonitorTransport t, Object key, int op, long cls, long token, long arg, int nanos)
            throws InterruptedException {
        MonitorRuntime.beginOutgoingCall(key);
        try {
            return t.call(key, op, cls, token, arg, nanos);
        } catch (RuntimeException | Error | InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new RemoteMonitorException("dthreads: monitor operation on " + safeDescribe(t, key) + " failed", e);
        } finally {
            MonitorRuntime.endOutgoingCall();
        }
    }

    /**
     * Enter, exit, notify and holds are not interruptible, as monitor entry is not: the site never answers them
     * with an interrupt, so one here is a transport's fault, reported as such.
     */
    private static long callUninterruptibly(RemoteMonitorTransport t, Object key, int op, long cls, long token, long arg,
            int nanos) {
        try {
            return call(t, key, op, cls, token, arg, nanos);
        } catch (InterruptedException e) {
            throw new RemoteMonitorException("dthreads: interrupted during a remote monitor operation that cannot be"
                    + " interrupted", e);
        }
    }

    private static String safeDescribe(RemoteMonitorTransport t, Object key) {
        try {
            return t.describe(key);
        } catch (RuntimeException e) {
            return key.getClass().getName();
        }
    }

    // ---------------- dump ----------------

    synchronized boolean isBusy() {
        return !leases.isEmpty() || !entering.isEmpty() || !waiting.isEmpty();
    }

    /** A dump row in {@link Monitor#snapshot()}'s columns; the first holding class if several hold leases. */
    synchronized Object[] snapshot(int identityHash, Object key) {
        ClientLease first = leases.isEmpty() ? null : leases.values().iterator().next();
        long[] waiters = waiting.stream().mapToLong(Long::longValue).toArray();
        long[] queued = entering.stream().mapToLong(Long::longValue).toArray();
        String where = first != null ? first.description : key != null ? describe(key) : typeName;
        long leftMillis = first == null ? -1L : Math.max(0L, first.millisUntilExpiry());
        return new Object[] {identityHash, "remote " + where, first == null ? 0L : first.threadClass,
                first == null ? 0 : first.depth, first == null ? "" : "lease " + Long.toHexString(first.token)
                + (first.lost ? " (LOST)" : ""), waiters, queued, where, leftMillis, 0};
    }

    // ---------------- leases ----------------

    /** A class's hold of the remote monitor through this stub. */
    static final class ClientLease {
        final Object target;
        final long threadClass;
        final long token;
        final RemoteMonitorTransport transport;
        final String description;
        /** Guarded by the lock of the {@link RemoteReference} that holds this lease. */
        int depth = 1;
        volatile boolean lost;
        volatile long renewedAtNanos = System.nanoTime();
        volatile ScheduledFuture<?> renewal;
        /** A renewal call is pending (its thread may be stuck on a cut-off connection). */
        final java.util.concurrent.atomic.AtomicBoolean inFlight = new java.util.concurrent.atomic.AtomicBoolean();

        ClientLease(Object target, long threadClass, long token, RemoteMonitorTransport transport) {
            this.target = target;
            this.threadClass = threadClass;
            this.token = token;
            this.transport = transport;
            this.description = safeDescribe(transport, target);
        }

        long millisUntilExpiry() {
            return LEASE_MILLIS - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - renewedAtNanos);
        }

        void stopRenewal() {
            ScheduledFuture<?> r = renewal;
            if (r != null) {
                r.cancel(false);
            }
        }

        /** On a renewal call thread; at most one per lease at a time ({@link #inFlight}). */
        void renew() {
            if (lost) {
                stopRenewal();
                return;
            }
            long sentAt = System.nanoTime(); // the site renews after this instant: a conservative new start
            try {
                boolean ok = transport.call(target, RemoteMonitorSite.RENEW, threadClass, token, 0L, 0) != 0L;
                if (ok) {
                    renewedAtNanos = sentAt;
                    return;
                }
                markLost("the site answered that the lease had expired");
            } catch (Exception | Error e) {
                if (millisUntilExpiry() <= 0) {
                    markLost("renewals failed for the whole lease: " + e);
                } else {
                    MonitorRuntime.LOG.warn("remote-renew-failed", "dthreads: renewing the lease on " + description
                            + " failed (" + e + "); retrying, " + millisUntilExpiry() + " ms left");
                }
            }
        }

        void markLost(String why) {
            lost = true;
            stopRenewal();
            MonitorRuntime.LOG.error("remote-lease-lost", "dthreads: " + ThreadClass.format(threadClass)
                    + " lost the remote monitor of " + description + " (" + why + "); its next operation on it fails");
        }
    }

    /**
     * Renews every held lease at a third of its duration. One daemon scheduler thread; the renewal calls
     * themselves run on a pool of daemon threads, at most one per lease at a time, so a connection cut off
     * without an error (a partition: a JRMP read does not time out) delays only that lease, which is then
     * declared lost once its whole duration passed without an answer.
     */
    static final class Renewal {
        private static final ScheduledThreadPoolExecutor SCHEDULER = scheduler();
        private static final java.util.concurrent.ExecutorService CALLS =
                java.util.concurrent.Executors.newCachedThreadPool(
                        MonitorRuntime.daemonThreads("dthreads-lease-renewal-call"));

        private Renewal() {}

        private static ScheduledThreadPoolExecutor scheduler() {
            ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1,
                    MonitorRuntime.daemonThreads("dthreads-lease-renewal"));
            e.setRemoveOnCancelPolicy(true);
            return e;
        }

        static void schedule(ClientLease lease) {
            long period = Math.max(1L, LEASE_MILLIS / 3);
            lease.renewal = SCHEDULER.scheduleWithFixedDelay(() -> tick(lease), period, period, TimeUnit.MILLISECONDS);
        }

        private static void tick(ClientLease lease) {
            if (lease.inFlight.compareAndSet(false, true)) {
                try {
                    CALLS.execute(() -> {
                        try {
                            lease.renew();
                        } finally {
                            lease.inFlight.set(false);
                        }
                    });
                } catch (RuntimeException e) {
                    lease.inFlight.set(false);
                }
            } else if (!lease.lost && lease.millisUntilExpiry() <= 0) {
                lease.markLost("no answer from the site for the whole lease");
            }
        }
    }

    private static long leaseMillis() {
        try {
            return LeaseBounds.forClient(System.getProperty("dthreads.monitor.leaseMillis"), LeaseBounds.MAX_LEASE_MILLIS);
        } catch (RuntimeException e) {
            return RemoteMonitorSite.DEFAULT_LEASE_MILLIS;
        }
    }
}
