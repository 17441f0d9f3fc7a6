package org.dthreads.monitor.internal;

import static org.dthreads.monitor.internal.MonitorRuntime.LOG;
import static org.dthreads.monitor.internal.MonitorRuntime.daemonThreads;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.dthreads.ThreadClass;
import org.dthreads.internal.KernelLink;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.dthreads.monitor.spi.RemoteMonitorTransport;
import org.dthreads.monitor.spi.RemoteMonitors;

/**
 * Interrupt routing: where {@code Thread.interrupt()} goes when the thread stands for a class whose activity
 * is elsewhere (see {@link #interrupt}), and the bookkeeping of outgoing calls, emulated waits and orphans
 * it needs.
 *
 * <h2>What guards what</h2>
 * <ul>
 *   <li>{@link #SUSPENDED} (thread -> its actor while in an outgoing call; see {@link SuspendedThreads}:
 *       it retains no dead thread), {@link #WAITS_BY_CLASS}
 *       (class -> its pending emulated waits here), {@link #ORPHANS_BY_CLASS} (class -> monitors where
 *       orphans of it park): concurrent maps with concurrent key sets; no lock of ours is held while they are
 *       used. A set is changed only inside the map's {@code compute}/{@code computeIfPresent} for its key
 *       (atomic per key: the map locks the key's bin), and dropped there once empty, so an add never lands in
 *       a set that a concurrent removal has just dropped (issue 15 §3). Readers iterate a set they got without
 *       the bin lock (weakly consistent).</li>
 *   <li>An actor's {@code classInterruptPending} (an atomic boolean) is the one interrupt kept for its
 *       class: whoever flips it true -> false delivers it, so it is delivered once.
 *       {@link #PENDING_CLASS_INTERRUPTS} counts the true ones so waits skip the scan when it is 0.</li>
 *   <li>{@link #ENDING} (thread -> actor between the end of its outermost call and the decision whether a
 *       kept interrupt is its own): put before the thread leaves {@code SUSPENDED}, removed after the decision,
 *       so a reader of the status finds it in one of the two or sees its own status set.</li>
 *   <li>An actor's {@code outgoingTarget}, {@code suspendedAtNanos}, {@code interruptForward}: written by the
 *       actor's thread before it publishes itself in {@code SUSPENDED} (a volatile write inside the map),
 *       read by interrupting threads after they found it there.</li>
 * </ul>
 *
 * <h2>Ordering</h2>
 * An orphan registers its monitor in {@code ORPHANS_BY_CLASS} and then re-reads the holder's state (see
 * {@code MonitorContention.enterSlow}); a thread beginning an outgoing call writes {@code outgoingCalls} (volatile) and
 * then reads {@code ORPHANS_BY_CLASS}: one of the two sees the other, so the orphan either takes over at once
 * or is woken ({@link Monitor#wakeOrphans}; an unpark before the park is kept as its permit).
 * <p>An interrupter sets {@code classInterruptPending} and then re-reads {@code SUSPENDED}; the call's end
 * removes itself from {@code SUSPENDED} and then takes {@code classInterruptPending}. One of the two sees
 * the other, so an interrupt that raced with the end of the call is delivered to the thread itself.
 * Forwarding to the site the call went to runs on a daemon thread; the call's end waits (bounded) for its
 * outcome before deciding whether the interrupt is still its own. Who decides is settled on one field, the
 * actor's {@code interruptForward}: an interrupter that forwards puts its latch there by compare-and-set, the
 * outermost call's end swaps in {@link #CALL_ENDED}. If the latch got in first, the end waits for it and alone
 * decides (the interrupter returns); if the end came first, nothing is forwarded and the interrupter and the end
 * decide through {@code SUSPENDED} and the flag as above. (Before, the interrupter also re-read {@code SUSPENDED}
 * after forwarding: when the callee's wait took the forward and the call returned before the interrupter went on,
 * it took the kept interrupt ahead of the forward's answer and set the caller's status too: delivered twice,
 * the flake of {@code VirtualThreadsTest}'s interrupt cases; {@code InterruptForwardedWhileCallEndsTest}.)
 */
final class InterruptRouting {
    /** Pending emulated waits by class, for interrupt routing. */
    static final Map<Long, Set<WaitNode>> WAITS_BY_CLASS = new ConcurrentHashMap<>();
    /** Monitors where orphans of a class are parked, woken when a thread of the class suspends. */
    static final Map<Long, Set<Monitor>> ORPHANS_BY_CLASS = new ConcurrentHashMap<>();
    /** How many suspended actors keep an interrupt for their class: lets waits skip the look-up. */
    static final AtomicInteger PENDING_CLASS_INTERRUPTS =
            new AtomicInteger();
    /** Threads blocked in outgoing remote calls, for interrupt routing (a dead thread is not retained). */
    static final SuspendedThreads SUSPENDED = new SuspendedThreads(PENDING_CLASS_INTERRUPTS);
    /**
     * Threads whose outermost call has ended, out of {@link #SUSPENDED}, while they decide whether an interrupt
     * kept for their class (or forwarded along the call) is theirs: up to the forward's answer, at most 10 s.
     * {@link InterruptStatus#isInterrupted} reads them here meanwhile, so {@code t.isInterrupted()} does not
     * read false between the end of the call and the status being set. Strong, but each entry lives only
     * within {@link #endOutgoingCall}.
     */
    static final Map<Thread, Actor> ENDING = new ConcurrentHashMap<>();

    /**
     * Tests only: runs on the interrupting thread right after it started a forward, so a test can end the call
     * and let the forward arrive before the interrupter goes on (InterruptForwardedWhileCallEndsTest).
     */
    static volatile Runnable forwardStartedHook;

    private InterruptRouting() {}

    /**
     * {@code t.interrupt()} as rewritten code calls it. A thread that is not in an outgoing remote call is
     * simply interrupted. A thread suspended in an outgoing call stands for its class, whose activity is
     * elsewhere: the interrupt goes to the class's emulated wait on this site if there is one (a callback
     * thread waiting for that class is that logical thread, and throws {@code InterruptedException}); if
     * there is none it is kept for the class, taken by the next wait of the class on this site, or, if
     * none comes, given back to {@code t} when its call returns. So one interrupt is delivered once, as in
     * the single-threaded program. It is also forwarded along the call to the site it went to (see
     * {@link #forwardAsync}), where a wait of the class takes it or it is passed on along the chain.
     */
    static void interrupt(Thread t) {
        Actor suspended = SUSPENDED.get(t);
        if (suspended == null) {
            t.interrupt();
            return;
        }
        try {
            long cls = suspended.outgoingClass;
            // t's own wait counts too: in -Ddthreads.callbacks=original a callback of its class runs on t while t
            // is suspended in its call, and a wait there is where the logical thread is. Skipping it sent the
            // interrupt around the chain and back (A -> B -> A), and t read its status as set after the wait had
            // thrown InterruptedException, until the forward's answer came (IiopOriginalThreadEdgesTest)
            if (interruptWaitOf(cls, null)) {
                return;
            }
            keepClassInterrupt(suspended);
            Object target = suspended.outgoingTarget;
            if (target != null && forwardAsync(suspended, target, cls)) {
                Runnable hook = forwardStartedHook;
                if (hook != null) {
                    hook.run();
                }
                return; // the call's end waits for the forward's answer, then decides (it alone)
            }
            if (!SUSPENDED.containsKey(t) && takeKeptInterrupt(suspended)) {
                // the call returned meanwhile: deliver to the thread itself
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
    private static boolean forwardAsync(Actor suspended, Object target, long cls) {
        CountDownLatch done = new CountDownLatch(1);
        if (!claimForward(suspended, done)) {
            return false;
        }
        try {
            FORWARDERS.execute(() -> {
                try {
                    if (forward(target, cls, INTERRUPT_HOPS) == DELIVERED) {
                        takeKeptInterrupt(suspended);
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
            if (WAITS_BY_CLASS.containsKey(cls)) {
                throw refusedInterrupt(cls);
            }
            return NOT_DELIVERED;
        }
        boolean refused = false;
        Set<WaitNode> waits = WAITS_BY_CLASS.get(cls);
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
        for (SuspendedThreads.Entry e : SUSPENDED.entries()) {
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
        for (Actor a : SUSPENDED.values()) {
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

    /**
     * Keeps an interrupt for {@code a}'s class: sets its flag, then raises {@link #PENDING_CLASS_INTERRUPTS} (in that
     * order, see {@link InterruptStatus}). Interrupts coalesce: one already kept stays one.
     */
    static void keepClassInterrupt(Actor a) {
        if (a.classInterruptPending.compareAndSet(false, true)) {
            PENDING_CLASS_INTERRUPTS.incrementAndGet();
        }
    }

    /**
     * Takes the interrupt kept for {@code a}'s class, if any: clears its flag, then lowers
     * {@link #PENDING_CLASS_INTERRUPTS}; true if one was kept (the caller delivers it, or it was delivered elsewhere).
     */
    static boolean takeKeptInterrupt(Actor a) {
        if (a.classInterruptPending.compareAndSet(true, false)) {
            PENDING_CLASS_INTERRUPTS.decrementAndGet();
            return true;
        }
        return false;
    }

    /** Takes an interrupt kept for {@code cls} (see {@link #interrupt}); true if there was one. */
    static boolean takeClassInterrupt(long cls) {
        if (PENDING_CLASS_INTERRUPTS.get() == 0) {
            return false;
        }
        for (Actor a : SUSPENDED.values()) {
            if (a.outgoingClass == cls && takeKeptInterrupt(a)) {
                return true;
            }
        }
        return false;
    }

    /** The calling thread is about to block in an outgoing remote call for its current class. */
    static void beginOutgoingCall() {
        beginOutgoingCall(null);
    }

    /**
     * The calling thread is about to block in an outgoing remote call to {@code target} (a stub an
     * adapter's monitor transport handles, or null): an interrupt of the thread is forwarded there.
     */
    static void beginOutgoingCall(Object target) {
        try {
            Actor me = Actor.current();
            long cls = KernelLink.currentClass();
            if (me.outgoingCalls == 0) {
                me.interruptForward = null; // forwards may start again (CALL_ENDED since the last call's end)
                me.outgoingTarget = target;
                me.suspendedAtNanos = System.nanoTime();
            }
            me.beginOutgoingCall(cls);
            SUSPENDED.put(me, KernelLink.boundClass() == cls);
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
    static void endOutgoingCall() {
        try {
            Actor me = Actor.current();
            if (!me.endOutgoingCall()) {
                LOG.warn("outgoing-end-unbalanced", "dthreads: OutgoingCalls.end() without begin() on thread '"
                        + me.thread.getName() + "'; ignored");
                return;
            }
            if (me.outgoingCalls == 0) {
                // no forward starts after this; one that started is this thread's to wait for (see forwardAsync)
                CountDownLatch forward = endForwards(me);
                // an interrupt kept or forwarded: the thread stays findable (ENDING) until its status is decided
                boolean deciding = forward != null || me.classInterruptPending.get();
                if (deciding) {
                    ENDING.put(me.thread, me);
                }
                try {
                    SUSPENDED.remove(me);
                    me.outgoingTarget = null;
                    if (forward != null) {
                        // the chain may unwind faster than the forward's answer travels back: learn whether a
                        // wait down the chain took the interrupt before deciding to keep it here (bounded)
                        awaitUninterruptibly(forward, 10);
                    }
                    if (takeKeptInterrupt(me)) {
                        Thread.currentThread().interrupt(); // nobody of the class waited meanwhile: it is ours
                    }
                } finally {
                    if (deciding) {
                        ENDING.remove(me.thread, me);
                    }
                }
            }
        } catch (Throwable t) {
            LOG.error("outgoing-end-failed", "dthreads: recording the end of an outgoing call failed: " + t);
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch, long seconds) {
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

    /**
     * Adds to the set of a key, creating it; one atomic step of the map's key (see the design comment). A
     * class rather than a lambda, and linked when this class is initialized (below), not by the first wait,
     * which may be at the end of a stack.
     */
    private static final class AddTo<E> implements BiFunction<Long, Set<E>, Set<E>> {
        private final E element;

        AddTo(E element) {
            this.element = element;
        }

        @Override
        public Set<E> apply(Long cls, Set<E> set) {
            Set<E> s = set == null ? ConcurrentHashMap.newKeySet() : set;
            s.add(element);
            return s;
        }
    }

    /** Removes from the set of a key, and the key with its set once empty; one atomic step (see AddTo). */
    private static final class RemoveFrom<E> implements BiFunction<Long, Set<E>, Set<E>> {
        private final E element;

        RemoveFrom(E element) {
            this.element = element;
        }

        @Override
        public Set<E> apply(Long cls, Set<E> set) {
            if (element != null) {
                set.remove(element);
            } else {
                set.removeIf(m -> m instanceof Monitor monitor && !monitor.isBusy());
            }
            return set.isEmpty() ? null : set;
        }
    }

    static { // links both paths now (a concurrent set takes no null element)
        Set<Object> probe = new AddTo<Object>(Boolean.TRUE).apply(0L, null);
        new RemoveFrom<Object>(Boolean.TRUE).apply(0L, probe);
        new RemoveFrom<Object>(null).apply(0L, new AddTo<Object>(Boolean.TRUE).apply(0L, null));
    }

    static void waitStarted(WaitNode node) {
        node.servesChain = node.actor instanceof LeaseActor || KernelLink.boundClass() == node.threadClass;
        WAITS_BY_CLASS.compute(node.threadClass, new AddTo<>(node));
    }

    static void waitEnded(WaitNode node) {
        WAITS_BY_CLASS.computeIfPresent(node.threadClass, new RemoveFrom<>(node));
    }

    static void orphanBlocked(Actor me, long cls, Monitor m) {
        ORPHANS_BY_CLASS.compute(cls, new AddTo<>(m));
        LOG.warn("orphan-blocked", "dthreads: " + me + " of class " + ThreadClass.format(cls)
                + " blocks on a monitor its class holds through another thread (a nested activation still running"
                + " after this thread's remote call ended, e.g. on a timeout); it proceeds when that activation"
                + " unwinds. See docs/remote-monitors.md, \"Orphans\".");
    }

    /** Drops the class's monitors where nobody is busy any more (a null element: remove the idle ones). */
    static void orphanUnblocked(Actor me, long cls) {
        ORPHANS_BY_CLASS.computeIfPresent(cls, new RemoveFrom<Monitor>(null));
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
}
