package org.dthreads.monitor.internal;

import static org.dthreads.monitor.internal.MonitorRuntime.LOG;
import static org.dthreads.monitor.internal.MonitorRuntime.daemonThreads;

import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.dthreads.ThreadClass;
import org.dthreads.internal.KernelLink;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.dthreads.monitor.spi.RemoteMonitorTransport;
import org.dthreads.monitor.spi.RemoteMonitors;

/**
 * Cross-site interrupts: an interrupt of a thread suspended in an outgoing call is forwarded along the call to the
 * site it went to ({@link #forwardAsync}), and an INTERRUPT request from the network is delivered to a wait of the
 * class here or passed on along the chain ({@link #interruptHere}). The local routing, and the decision at the
 * call's end whether a kept interrupt is the thread's own, are {@link InterruptRouting}'s.
 *
 * <h2>What guards what</h2>
 * An actor's {@code interruptForward} is the one hand-off between an interrupter and the end of its outermost
 * call, changed only through {@link #FORWARD}: the interrupter puts its forward's latch there by compare-and-set
 * ({@link #claimForward}) unless it finds {@link #CALL_ENDED}; the end swaps {@code CALL_ENDED} in
 * ({@link #endForwards}) and waits for the latch it swapped out. Forwards run on daemon threads
 * ({@link #FORWARDERS}); each counts its latch down once done, whatever the outcome. The registries it reads
 * ({@link InterruptRouting#SUSPENDED}, {@link WaitsAndOrphans#WAITS_BY_CLASS}) are concurrent maps, read
 * weakly consistently.
 *
 * <h2>Ordering</h2>
 * See {@link InterruptRouting}, "Ordering": who decides is settled on {@code interruptForward} alone (volatile
 * accesses through the VarHandle); a forward that delivered withdraws the kept interrupt (its atomic flag) before
 * counting its latch down, so the end that waited for the latch sees the withdrawal.
 */
final class InterruptForwarding {
    private InterruptForwarding() {
    }

    /** How many sites an interrupt is forwarded through at most (a guard against cycles). */
    static final int INTERRUPT_HOPS = 32;
    static final long DELIVERED = 1L;
    static final long NOT_DELIVERED = 0L;

    /**
     * In {@code Actor.interruptForward} from the end of an outermost call until the next one begins: no forward
     * may start any more, the end has decided. The field is the one hand-off between an interrupter and the
     * call's end: the interrupter puts its forward's latch there by compare-and-set unless it finds this; the end
     * swaps this in and waits for the latch it swapped out.
     */
    static final CountDownLatch CALL_ENDED = new CountDownLatch(0);
    private static final java.lang.invoke.VarHandle FORWARD;

    static {
        try {
            FORWARD = java.lang.invoke.MethodHandles.lookup()
                    .findVarHandle(Actor.class, "interruptForward", CountDownLatch.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final ExecutorService FORWARDERS =
            Executors.newCachedThreadPool(daemonThreads("dthreads-interrupt-forward"));

    /**
     * Sends the interrupt of {@code cls} along the outgoing call of {@code suspended} on a daemon thread
     * (an interrupt must not block the interrupting thread on the network). If a wait down the chain took
     * it, the interrupt kept here is withdrawn; the suspended thread's {@code end()} waits for the outcome,
     * so the interrupt is delivered once: as InterruptedException there, or as this thread's status.
     *
     * <p>False, sending nothing, if the call has already ended ({@code end()} took {@link #CALL_ENDED}): the
     * interrupter then decides itself, against {@code end()}, as for a call without a target. True: the
     * forward's latch is in {@code interruptForward} before {@code end()} swaps it out, so {@code end()} waits
     * for it and is the one that decides; the interrupter must not (it did, and delivered the interrupt twice
     * when the callee's wait took the forward and the call ended before the interrupter went on).
     */
    static boolean forwardAsync(Actor suspended, Object target, long cls) {
        CountDownLatch done = new CountDownLatch(1);
        if (!claimForward(suspended, done)) {
            return false;
        }
        try {
            FORWARDERS.execute(() -> {
                try {
                    if (forward(target, cls, INTERRUPT_HOPS) == DELIVERED) {
                        InterruptRouting.takeKeptInterrupt(suspended);
                    }
                } finally {
                    done.countDown();
                }
            });
        } catch (RuntimeException e) {
            done.countDown();
        }
        return true;
    }

    /**
     * The interrupter's side of the hand-off: puts {@code latch} in {@code a.interruptForward} unless the call's
     * end has swapped in {@link #CALL_ENDED}; true if it did (the end will wait for {@code latch}). An earlier
     * forward of the same call still in flight is replaced: the end waits for the later one.
     */
    static boolean claimForward(Actor a, CountDownLatch latch) {
        for (;;) {
            CountDownLatch seen = a.interruptForward;
            if (seen == CALL_ENDED) {
                return false;
            }
            if (FORWARD.compareAndSet(a, seen, latch)) {
                return true;
            }
        }
    }

    /** The end's side: no forward starts after this; returns the one that started (to wait for), or null. */
    static CountDownLatch endForwards(Actor a) {
        return (CountDownLatch) FORWARD.getAndSet(a, CALL_ENDED);
    }

    /** One forward to the site of {@code target}; DELIVERED if a wait of {@code cls} there or beyond took it. */
    private static long forward(Object target, long cls, int hops) {
        if (hops <= 0) {
            return NOT_DELIVERED;
        }
        RemoteMonitorTransport transport = RemoteMonitors.transportFor(target);
        if (transport == null) {
            return NOT_DELIVERED;
        }
        try {
            return transport.call(target, RemoteMonitorSite.INTERRUPT, cls, 0L, hops - 1, 0);
        } catch (Exception | Error e) {
            LOG.warn("interrupt-forward-failed", "dthreads: forwarding an interrupt of " + ThreadClass.format(cls)
                    + " to the site of its remote call failed (" + e + "); it is kept for the calling thread");
            return NOT_DELIVERED;
        }
    }

    /**
     * An INTERRUPT request for {@code cls} reached this site from the network: interrupt its wait here, or pass
     * it on along the most recent outgoing call of the class from here (the chain's next hop).
     *
     * <p>The causality gate (issue 15 §4): an interrupt travels down a call chain, so it may reach only what
     * the class does here <em>because a call brought it here</em>: a wait or an outgoing call of a thread
     * bound to the class (a server thread serving the chain, or a binding of the application), or a remote
     * holder's wait under its lease. The class's own home thread, waiting or calling out on its own, is
     * never interrupted or forwarded for from the network; neither is anything of a class born here while
     * none of its threads here is in an outgoing call (its activity is here, so no chain can come back to
     * it). A request that finds only such waits or calls is refused with IMSE (logged with the peer by the
     * caller); one that finds nothing of the class answers NOT_DELIVERED (a wait that just ended).
     */
    static long interruptHere(long cls, long hopsLeft) {
        if (ThreadClass.siteId(cls) == KernelLink.siteId() && !suspendedHere(cls)) {
            if (WaitsAndOrphans.WAITS_BY_CLASS.containsKey(cls)) {
                throw refusedInterrupt(cls);
            }
            return NOT_DELIVERED;
        }
        boolean refused = false;
        Set<WaitNode> waits = WaitsAndOrphans.WAITS_BY_CLASS.get(cls);
        if (waits != null) {
            for (WaitNode w : waits) {
                if (w.state == WaitNode.WAITING) {
                    if (w.servesChain) {
                        w.thread.interrupt();
                        return DELIVERED;
                    }
                    refused = true;
                }
            }
        }
        Actor deepest = null;
        for (SuspendedThreads.Entry e : InterruptRouting.SUSPENDED.entries()) {
            Actor a = e.get();
            if (a == null || a.outgoingClass != cls || a.outgoingCalls <= 0 || a.outgoingTarget == null) {
                continue;
            }
            if (!e.servesChain) {
                refused = true;
            } else if (deepest == null || a.suspendedAtNanos - deepest.suspendedAtNanos > 0) {
                deepest = a;
            }
        }
        if (deepest == null) {
            if (refused) {
                throw refusedInterrupt(cls);
            }
            return NOT_DELIVERED;
        }
        Object target = deepest.outgoingTarget;
        return target == null ? NOT_DELIVERED : forward(target, cls, (int) Math.min(hopsLeft, INTERRUPT_HOPS));
    }

    private static boolean suspendedHere(long cls) {
        for (Actor a : InterruptRouting.SUSPENDED.values()) {
            if (a.outgoingClass == cls && a.outgoingCalls > 0) {
                return true;
            }
        }
        return false;
    }

    private static IllegalMonitorStateException refusedInterrupt(long cls) {
        return new IllegalMonitorStateException("dthreads: no wait or outgoing call of " + ThreadClass.format(cls)
                + " here serves a call chain; a remote interrupt reaches only those, never the class's home thread");
    }
}
