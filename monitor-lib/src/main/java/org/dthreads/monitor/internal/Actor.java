package org.dthreads.monitor.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One physical thread's state in the monitor runtime; {@link LeaseActor} is the stand-in for a remote holder.
 *
 * <h2>Design</h2>
 * Confined to its thread: {@link #cached} (a one-entry cache of the last monitor used, which skips the
 * table on the common "enter then exit the same object" path; a table binding, whose key the table's
 * sweep clears when it retires the monitor, so the cache never keeps an object alive), the cached
 * {@link Hold}, the exit bookkeeping {@link #exitCommitted}, and the kernel's current-class cell of the thread
 * ({@link #currentClass}: written by the kernel on this thread only, so enter and exit read the class without a
 * second thread-local look-up). {@link #current} finds the actor in a racy array by thread id before the
 * thread-local ({@link #BY_THREAD_ID}: an entry is trusted only by the thread it names).
 * <p>Shared: {@link #outgoingCalls} is written only by the owning thread (around outgoing remote calls)
 * and read by other threads of the same class deciding whether they may take over a hold; its volatile
 * write in {@link #beginOutgoingCall} is the release that makes the suspended thread's critical-section
 * writes visible to the thread that takes over (which reads it before taking over). {@link #frozenHolds}
 * counts this actor's holds currently taken over by another actor; it is changed by those actors (under
 * the lock of the monitor concerned) with atomic adds and read by this actor's fast paths, which must
 * not acquire a monitor fresh while one of its holds is frozen. {@link #heldSlots} is written by its thread
 * only and read by diagnostics as {@link HeldSlotMonitors} says.
 */
class Actor {
    private static final VarHandle FROZEN_HOLDS;

    static {
        try {
            FROZEN_HOLDS = MethodHandles.lookup().findVarHandle(Actor.class, "frozenHolds", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final ThreadLocal<Actor> CURRENT = ThreadLocal.withInitial(
            () -> new Actor(Thread.currentThread(), org.dthreads.internal.KernelLink.currentClassCell()));

    /** The thread this actor is; {@code null} for a lease. */
    final Thread thread;
    volatile int outgoingCalls;
    /** The class the thread was acting for when its outermost outgoing call began. */
    volatile long outgoingClass;
    volatile int frozenHolds;
    /**
     * An interrupt of this thread that arrived while it was suspended in an outgoing call and found no
     * emulated wait of its class to wake: taken by the next wait of the class on this site, or given back
     * to this thread when its call returns (see {@link MonitorRuntime#interrupt}).
     */
    final java.util.concurrent.atomic.AtomicBoolean classInterruptPending = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * Where the outermost outgoing call went (a stub), for forwarding an interrupt of the class along the
     * chain; null if the adapter did not say. With {@link #suspendedAtNanos}, written before
     * {@link #outgoingCalls} by the owning thread, read by interrupting threads after reading it.
     */
    volatile Object outgoingTarget;
    volatile long suspendedAtNanos;
    /** A forward of an interrupt is in flight; the call's end waits for its outcome before deciding. */
    volatile java.util.concurrent.CountDownLatch interruptForward;

    private Hold hold;
    MonitorTable.Binding cached = MonitorTable.Binding.NONE;
    /** Set right after the write that commits an exit; lets a failed exit tell what is left to do. */
    boolean exitCommitted;
    /** The slot monitors this thread acquired and still holds, for diagnostics; null until its first. */
    HeldSlotMonitors heldSlots;
    /** This thread's entry in the suspended-threads table, made once and put back for each outgoing call. */
    SuspendedThreads.Entry suspendedEntry;

    /**
     * The kernel's current-class cell of {@link #thread} ({@code KernelLink.currentClassCell}), read by that thread
     * only; null for a lease, or if the kernel has none.
     */
    private final long[] classCell;

    Actor(Thread thread) {
        this(thread, null);
    }

    private Actor(Thread thread, long[] classCell) {
        this.thread = thread;
        this.classCell = classCell;
    }

    /**
     * A direct-mapped cache of thread actors by thread id, in front of {@link #CURRENT} (issue 16: the thread-local's
     * chain of six dependent loads, paid by every enter and exit, was a third of the slotted path's profile). An entry
     * is trusted only by its own thread ({@code entry.thread == Thread.currentThread()}, a final field: safe to read
     * from a racy array), which made it; other threads only compare against it. Written on a miss into an empty
     * entry or one of a dead thread (two live threads sharing an index keep the thread-local path for the second,
     * instead of overwriting each other's entry), plain stores of references. A dead thread's entry keeps its actor
     * (and {@code Thread}) until another thread takes the index or the sweep after the next collection drops it
     * ({@link #pruneDead}), as the registry of held lists does ({@link HeldSlotMonitors#pruneDead}).
     */
    private static final Actor[] BY_THREAD_ID = new Actor[1024];

    static Actor current() {
        return current(BY_THREAD_ID);
    }

    /** {@link #current} through {@code cache} (a power-of-two length), which may be another array (for tests). */
    static Actor current(Actor[] cache) {
        Thread t = Thread.currentThread();
        Actor a = cache[(int) t.getId() & (cache.length - 1)];
        if (a != null && a.thread == t) {
            return a;
        }
        return currentSlow(cache, t);
    }

    private static Actor currentSlow(Actor[] cache, Thread t) {
        Actor a = CURRENT.get();
        int i = (int) t.getId() & (cache.length - 1);
        Actor seen = cache[i];
        if (seen == null || !seen.thread.isAlive()) {
            cache[i] = a;
        }
        return a;
    }

    static void pruneDead() {
        pruneDead(BY_THREAD_ID);
    }

    /** Drops the cached actors of dead threads ({@link #BY_THREAD_ID}); run after every collection by the sweep. */
    static void pruneDead(Actor[] cache) {
        for (int i = 0; i < cache.length; i++) {
            Actor a = cache[i];
            if (a != null && !a.thread.isAlive()) {
                cache[i] = null; // racing a store of a live thread's actor here only costs it a miss
            }
        }
    }

    /**
     * {@code KernelLink.currentClass()} of the calling thread, which must be {@link #thread} ({@link #current}'s
     * actor): read from the kernel's cell, which its bindings keep current (an incoming call's class switch included),
     * so enter and exit pay one thread-local look-up (this actor), not two.
     */
    final long currentClass() {
        long[] cell = classCell;
        long c;
        if (cell != null && (c = cell[0]) != 0L) {
            return c;
        }
        return org.dthreads.internal.KernelLink.currentClass(); // the thread's own class, allocated now
    }

    final Hold holdFor(long threadClass) {
        Hold h = hold;
        if (h == null || h.threadClass != threadClass) {
            h = new Hold(this, threadClass);
            hold = h;
        }
        return h;
    }

    /** Whether another actor of the same class may act in this actor's place. */
    boolean isSuspended() {
        return outgoingCalls > 0;
    }

    final void addFrozenHolds(int delta) {
        FROZEN_HOLDS.getAndAdd(this, delta);
    }

    final void beginOutgoingCall(long threadClass) {
        int n = outgoingCalls;
        if (n == 0) {
            outgoingClass = threadClass;
        }
        outgoingCalls = n + 1; // volatile write: release of everything this thread did before the call
    }

    /** @return false if there was no call to end */
    final boolean endOutgoingCall() {
        int n = outgoingCalls;
        if (n <= 0) {
            return false;
        }
        outgoingCalls = n - 1;
        return true;
    }

    @Override
    public String toString() {
        return thread == null ? "?" : "thread '" + thread.getName() + "'";
    }
}
