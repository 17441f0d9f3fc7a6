package org.dthreads.monitor.internal;

import static org.dthreads.monitor.internal.MonitorRuntime.LOG;

import org.dthreads.internal.KernelLink;

/**
 * {@code t.isInterrupted()} and {@code Thread.interrupted()} as rewritten code calls them: the interrupt status
 * of the <em>logical</em> thread, which {@link InterruptRouting#interrupt} may have kept for a class instead of
 * setting a physical thread's status.
 *
 * <h2>Semantics (the single-threaded program's)</h2>
 * A class T is one logical thread with one interrupt status. While T's home thread H is suspended in an
 * outgoing call, an interrupt of H that no wait took is kept for T ({@code Actor.classInterruptPending}) and
 * forwarded along H's call. That kept interrupt <em>is</em> T's status on this site, so:
 * <ul>
 *   <li>{@code H.isInterrupted()} is H's own status, or true while an interrupt is kept for H's class;</li>
 *   <li>a thread acting for T here (a callback server thread bound to T) reads
 *       {@code Thread.currentThread().isInterrupted()} as its own status or an interrupt kept for T, and
 *       {@code Thread.interrupted()} clears both: its own status and every interrupt kept for T on this site
 *       (interrupts coalesce into one status, as for one thread). A kept interrupt taken here is no longer
 *       given back to H when its call returns, nor taken by a later wait: it is delivered once.</li>
 * </ul>
 * Any other thread's status is its own. {@code isInterrupted} calls {@code t.isInterrupted()} virtually, so an
 * override still runs; its answer is or-ed with the kept interrupt.
 *
 * <h2>What guards what, cost</h2>
 * No state of its own: it reads {@link InterruptRouting#SUSPENDED} and the actors' atomic
 * {@code classInterruptPending} flags, and takes a kept interrupt only by flipping a flag true -> false (the
 * same rule as {@link InterruptRouting#takeKeptInterrupt}), then decrements
 * {@link InterruptRouting#PENDING_CLASS_INTERRUPTS}. When that count is 0 (no interrupt kept anywhere on this
 * site) both operations are the JDK's plus one volatile read. The count is raised after the flag is set and
 * lowered after it is cleared, so a reader that sees 0 while an interrupt is being kept orders itself before
 * that interrupt (which has not returned yet).
 *
 * <h2>Limit: an interrupt in flight</h2>
 * A kept interrupt is also being forwarded along H's call. If {@code interrupted()} (or a wait) here takes it
 * while the forward is still travelling, and a wait of T down the chain takes the forward too, it is delivered
 * twice. In a consistent chain T runs here only while its threads down the chain are suspended in calls back
 * here, so the forward finds no wait there; the window is a callback's return overtaking the forward. The
 * converse: after a wait down the chain took the forward, {@code H.isInterrupted()} reads true here until the
 * forward's answer comes back and withdraws the kept interrupt (one network round trip); H's own call does not
 * return before that answer. See {@code docs/remote-monitors.md}, "Interrupts".
 */
public final class InterruptStatus {

    private InterruptStatus() {}

    /**
     * {@code t.isInterrupted()}: {@code t}'s own status (an override runs), or true while an interrupt is kept
     * for the class {@code t} acts for (t suspended in an outgoing call, or t the calling thread).
     */
    public static boolean isInterrupted(Thread t) {
        boolean own = t.isInterrupted(); // NullPointerException for a null t, as the original call
        if (own || InterruptRouting.PENDING_CLASS_INTERRUPTS.get() == 0) {
            return own;
        }
        try {
            Actor suspended = InterruptRouting.SUSPENDED.get(t);
            if (suspended == null) {
                suspended = InterruptRouting.ENDING.get(t); // its call ended, its status not yet decided
            }
            if (suspended != null) {
                return suspended.classInterruptPending.get() || isKeptFor(suspended.outgoingClass);
            }
            return t == Thread.currentThread() && isKeptFor(KernelLink.currentClass());
        } catch (Throwable e) {
            LOG.error("interrupt-status-failed", "dthreads: reading an interrupt kept for a thread's class failed ("
                    + e + "); answering with the thread's own status");
            return false;
        }
    }

    /**
     * {@code Thread.interrupted()}: clears and returns the calling thread's own status and every interrupt
     * kept on this site for the class it acts for.
     */
    public static boolean interrupted() {
        boolean own = Thread.interrupted();
        if (InterruptRouting.PENDING_CLASS_INTERRUPTS.get() == 0) {
            return own;
        }
        try {
            return takeAllKeptFor(KernelLink.currentClass()) || own;
        } catch (Throwable e) {
            LOG.error("interrupt-status-failed", "dthreads: taking an interrupt kept for the calling thread's class"
                    + " failed (" + e + "); answering with the thread's own status");
            return own;
        }
    }

    private static boolean isKeptFor(long cls) {
        for (Actor a : InterruptRouting.SUSPENDED.values()) {
            if (a.outgoingClass == cls && a.classInterruptPending.get()) {
                return true;
            }
        }
        return false;
    }

    /**
     * For the callback mailbox of {@code -Ddthreads.callbacks=original}: the calling thread, suspended in an outgoing
     * call, was taken out of its park by an interrupt that did not go through {@link InterruptRouting#interrupt} (the
     * JDK's own {@code interrupt()}, e.g. {@code FutureTask.cancel(true)}), and must clear its status to park again.
     * The interrupt is kept for its class, as one that no wait took is, so {@code t.isInterrupted()} reads true while
     * the thread waits (as it does for a take-over-mode caller, whose socket read goes on with the status set) and a
     * wait or {@code interrupted()} of the class here takes it; it is not forwarded along the call (the JDK's
     * interrupt of a take-over-mode caller is not either). False, keeping nothing, if the thread is not suspended.
     */
    public static boolean keepOwnWhileSuspended() {
        Actor a = InterruptRouting.SUSPENDED.get(Thread.currentThread());
        if (a == null) {
            return false;
        }
        InterruptRouting.keepClassInterrupt(a);
        return true;
    }

    /**
     * Takes back, for the calling thread, what {@link #keepOwnWhileSuspended} kept: true if it was still kept (it is
     * the caller's to deliver now), false if a wait or {@code interrupted()} of the class took it (delivered).
     */
    public static boolean takeBackOwn() {
        Actor a = InterruptRouting.SUSPENDED.get(Thread.currentThread());
        return a != null && InterruptRouting.takeKeptInterrupt(a);
    }

    /** Takes every interrupt kept for {@code cls} on this site; true if there was one. */
    static boolean takeAllKeptFor(long cls) {
        boolean took = false;
        for (Actor a : InterruptRouting.SUSPENDED.values()) {
            if (a.outgoingClass == cls && InterruptRouting.takeKeptInterrupt(a)) {
                took = true;
            }
        }
        return took;
    }
}
