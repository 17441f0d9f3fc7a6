package org.dthreads.monitor.internal;

import static org.dthreads.monitor.internal.MonitorRuntime.LOG;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.dthreads.internal.KernelLink;

/**
 * Interrupt routing: where {@code Thread.interrupt()} goes when the thread stands for a class whose activity
 * is elsewhere (see {@link #interrupt}), and the bookkeeping of outgoing calls, emulated waits and orphans
 * it needs. Forwarding along a call to another site is {@link InterruptForwarding}; the per-class registries of
 * waits and orphans are {@link WaitsAndOrphans}.
 *
 * <h2>What guards what</h2>
 * <ul>
 *   <li>{@link #SUSPENDED} (thread -> its actor while in an outgoing call; see {@link SuspendedThreads}:
 *       it retains no dead thread), and the registries {@link WaitsAndOrphans#WAITS_BY_CLASS} (class -> its
 *       pending emulated waits here) and {@link WaitsAndOrphans#ORPHANS_BY_CLASS} (class -> monitors where
 *       orphans of it park): concurrent maps; no lock of ours is held while they are used (how a registry's
 *       sets change atomically per key: see {@link WaitsAndOrphans}).</li>
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
 * {@code MonitorContention.enterSlow}); a thread beginning an outgoing call writes {@code outgoingCalls} (volatile)
 * and then reads {@code ORPHANS_BY_CLASS}: one of the two sees the other, so the orphan either takes over at once
 * or is woken ({@link Monitor#wakeOrphans}; an unpark before the park is kept as its permit).
 * <p>An interrupter sets {@code classInterruptPending} and then re-reads {@code SUSPENDED}; the call's end removes
 * itself from {@code SUSPENDED} and then takes {@code classInterruptPending}. One of the two sees the other, so an
 * interrupt that raced with the end of the call is delivered to the thread itself. Forwarding to the site the call
 * went to runs on a daemon thread; the call's end waits (bounded) for its outcome before deciding whether the
 * interrupt is still its own. Who decides is settled on one field, the actor's {@code interruptForward}: an
 * interrupter that forwards puts its latch there by compare-and-set, the outermost call's end swaps in
 * {@link InterruptForwarding#CALL_ENDED} (see {@link InterruptForwarding}). If the latch got in first, the end
 * waits for it and alone decides (the interrupter returns); if the end came first, nothing is forwarded and the
 * interrupter and the end decide through {@code SUSPENDED} and the flag as above. (Before, the interrupter also
 * re-read {@code SUSPENDED} after forwarding: when the callee's wait took the forward and the call returned before
 * the interrupter went on, it took the kept interrupt ahead of the forward's answer and set the caller's status
 * too: delivered twice, the flake of {@code VirtualThreadsTest}'s interrupt cases;
 * {@code InterruptForwardedWhileCallEndsTest}.)
 */
final class InterruptRouting {
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

    static {
        // its parts, initialized with it (MonitorRuntime initializes this class early): a class first used deep in a
        // stack (a wait at the end of a recursion) fails to initialize there and stays unusable for good
        try {
            java.lang.invoke.MethodHandles.Lookup lookup = java.lang.invoke.MethodHandles.lookup();
            lookup.ensureInitialized(WaitsAndOrphans.class);
            lookup.ensureInitialized(InterruptForwarding.class);
        } catch (IllegalAccessException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * {@code t.interrupt()} as rewritten code calls it. A thread that is not in an outgoing remote call is
     * simply interrupted. A thread suspended in an outgoing call stands for its class, whose activity is
     * elsewhere: the interrupt goes to the class's emulated wait on this site if there is one (a callback
     * thread waiting for that class is that logical thread, and throws {@code InterruptedException}); if
     * there is none it is kept for the class, taken by the next wait of the class on this site, or, if
     * none comes, given back to {@code t} when its call returns. So one interrupt is delivered once, as in
     * the single-threaded program. It is also forwarded along the call to the site it went to (see
     * {@link InterruptForwarding#forwardAsync}), where a wait of the class takes it or it is passed on along the chain.
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
            if (WaitsAndOrphans.interruptWaitOf(cls, null)) {
                return;
            }
            keepClassInterrupt(suspended);
            Object target = suspended.outgoingTarget;
            if (target != null && InterruptForwarding.forwardAsync(suspended, target, cls)) {
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
            if (!WaitsAndOrphans.ORPHANS_BY_CLASS.isEmpty()) {
                Set<Monitor> monitors = WaitsAndOrphans.ORPHANS_BY_CLASS.get(cls);
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
                CountDownLatch forward = InterruptForwarding.endForwards(me);
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
}
