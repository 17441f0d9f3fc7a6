package org.dthreads.monitor.internal.callbacks;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.dthreads.monitor.internal.InterruptStatus;

/**
 * An outgoing call in {@code -Ddthreads.callbacks=original} mode made on the calling thread itself, for an ORB
 * whose reply wait a protocol adapter can open to callbacks (JacORB's {@code ReplyPlaceholder}, GlassFish's
 * {@code ResponseWaitingRoomImpl}, patched by iiop-adapter): no helper thread and no hand-off of the reply, so a call
 * that gets no callback costs no extra wake-up. The ORB's waiting thread, a
 * {@code synchronized (lock) { while (!ready) lock.wait(ms); }} loop (or the same with a {@link Lock} and its
 * {@link Condition}), asks {@link #current()} for the armed wait of its thread; while one is armed, it registers
 * what it waits on and leaves its loop by {@link #CALLBACK_QUEUED} when a callback is queued ({@link #beforeWait},
 * {@link #afterWait}; the server thread that queues a callback notifies or signals it), and the patched method
 * ({@link #runOriginal}) runs the callbacks <em>outside</em> the ORB's lock (the ORB's reader thread needs it to
 * deliver replies, the callbacks' own nested calls among them), and runs the ORB's wait again.
 *
 * <h2>Concurrency</h2>
 * The mailbox ({@link CallbackMailbox}) is opened and closed as by {@link CallbackOutgoingCall}. An instance is
 * used by its owner thread only, except {@link #wake()}, which a server thread runs from
 * {@link CallbackMailbox#offer} after queueing: it notifies {@link #monitor} under it (or signals the condition of
 * a {@link LockWait} under its lock). No lost wake-up: the owner publishes the monitor (volatile) before it reads
 * the queue under the mailbox lock, and reads the queue and starts waiting without leaving the monitor; the server
 * writes the queue under the mailbox lock, then reads the monitor and must take it to notify, which it gets only
 * once the owner waits (a {@code Condition.await} releases its lock atomically, as {@code Object.wait} does).
 * The jcstress case {@code OrbWaitWakeStress} races the three parts (queueing, the reply, the owner waiting again).
 */
public final class CallbackOrbWait {

    /**
     * Thrown by {@link #beforeWait} / {@link #afterWait} through the ORB's original wait loop when a callback is
     * queued (the loop's {@code synchronized} or {@code finally} releases the ORB's lock on the way out), caught by
     * {@link #runOriginal}; no stack trace.
     */
    public static final RuntimeException CALLBACK_QUEUED =
            new RuntimeException("dthreads: a callback is queued", null, false, false) {
                private static final long serialVersionUID = 1L;
            };

    private static final ThreadLocal<CallbackOrbWait> ARMED = new ThreadLocal<>();

    /** A {@link Lock} and its {@link Condition} the owner awaits; immutable. */
    private record LockWait(Lock lock, Condition condition) {}

    /** The ORB's wait, run again by {@link #runOriginal} after each round of callbacks. */
    @FunctionalInterface
    public interface OriginalWait {
        Object run() throws Throwable;
    }

    /** One round of the queued callbacks for {@link #runOriginal}: {@link #runQueued()}, or an ORB's wrapper of it. */
    @FunctionalInterface
    public interface CallbackRound {
        void run() throws Throwable;
    }

    private final CallbackMailbox box;
    private final Runnable waker = this::wake;
    private volatile Object monitor; // the ORB monitor or LockWait the owner waits on, or null
    private boolean interruptPending; // owner only
    private boolean kept; // interruptPending is also kept for the class (InterruptStatus); owner only
    private long deadline; // owner only: nanoTime at which the ORB's first bounded wait of runOriginal ends
    private boolean deadlineSet; // owner only

    private CallbackOrbWait(CallbackMailbox box) {
        this.box = box;
    }

    /**
     * Runs {@code call} on the calling thread with its ORB reply waits open to callbacks of {@code threadClass}
     * (see the class comment). As {@link CallbackOutgoingCall#call}, the call is made without taking callbacks when
     * another thread of the class already takes them here or a callback running under another class calls out.
     */
    public static Object call(long threadClass, CallbackCall call) throws Throwable {
        CallbackMailbox box = CallbackMailbox.current();
        boolean outermost = box == null;
        if (outermost) {
            box = CallbackMailbox.open(threadClass);
            if (box == null) {
                return call.call();
            }
        } else if (box.threadClass() != threadClass) {
            return call.call();
        }
        CallbackOrbWait wait = new CallbackOrbWait(box);
        CallbackOrbWait outer = ARMED.get();
        Runnable outerWaker = box.swapWaker(wait.waker);
        ARMED.set(wait);
        try {
            return call.call();
        } finally {
            ARMED.set(outer);
            box.swapWaker(outerWaker);
            wait.reassertInterrupt();
            if (outermost) {
                box.close();
            }
        }
    }

    /** The calling thread's armed wait (inside {@link #call}, not inside a callback it runs), or null. */
    public static CallbackOrbWait current() {
        return ARMED.get();
    }

    /** Owner, holding {@code orbMonitor}, before it checks {@link #callbackQueued()} and waits on it. */
    public void waitingOn(Object orbMonitor) {
        monitor = orbMonitor;
    }

    /** Owner, holding {@code lock}, before it checks {@link #callbackQueued()} and awaits {@code condition}. */
    public void waitingOn(Lock lock, Condition condition) {
        Object m = monitor;
        if (!(m instanceof LockWait w && w.condition == condition && w.lock == lock)) {
            monitor = new LockWait(lock, condition);
        }
    }

    /**
     * Owner, in place of the ORB's wait, holding the ORB's {@code orbMonitor}: registers it, then throws
     * {@link #CALLBACK_QUEUED} if a callback is queued (the owner must then not wait).
     */
    public void beforeWait(Object orbMonitor) {
        waitingOn(orbMonitor);
        afterWait();
    }

    /** As {@link #beforeWait(Object)}, for an ORB that awaits {@code condition} of {@code lock}. */
    public void beforeWait(Lock lock, Condition condition) {
        waitingOn(lock, condition);
        afterWait();
    }

    /** Owner, after the ORB's wait returned (still holding its lock): throws {@link #CALLBACK_QUEUED} if one is queued. */
    public void afterWait() {
        if (box.hasQueued()) {
            throw CALLBACK_QUEUED;
        }
    }

    /**
     * Owner, for an ORB that restarts its reply timeout each time its wait method is entered: {@code nanos} (what
     * the ORB would wait now) bounded by what is left of the first bounded wait since {@link #runOriginal} began,
     * so that the re-entries after callbacks keep one deadline; {@code <= 0}: the time is up.
     */
    public long boundedNanos(long nanos) {
        long now = System.nanoTime();
        if (!deadlineSet) {
            deadlineSet = true;
            deadline = now + nanos;
            return nanos;
        }
        return Math.min(nanos, deadline - now);
    }

    /**
     * Owner: runs the ORB's wait {@code original} (whose wait calls {@link #beforeWait} / {@link #afterWait}),
     * and each time it leaves by {@link #CALLBACK_QUEUED}, runs the queued callbacks outside the ORB's lock, calls
     * {@code again} (may be null) and runs it again; the callbacks still queued when it returns run first.
     */
    public Object runOriginal(OriginalWait original, Runnable again) throws Throwable {
        return runOriginal(original, this::runQueued, again);
    }

    /** As {@link #runOriginal(OriginalWait, Runnable)}, each round of callbacks run by {@code round}. */
    public Object runOriginal(OriginalWait original, CallbackRound round, Runnable again) throws Throwable {
        deadlineSet = false;
        for (;;) {
            try {
                Object result = original.run();
                if (callbackQueued()) { // callbacks first, as in the mailbox's wait: none queued stays behind
                    round.run();
                }
                return result;
            } catch (RuntimeException e) {
                if (e != CALLBACK_QUEUED) {
                    throw e;
                }
            }
            round.run();
            if (again != null) {
                again.run();
            }
        }
    }

    /** Owner: whether a callback waits to be run (then it leaves the ORB's monitor and calls {@link #runQueued()}). */
    public boolean callbackQueued() {
        return box.hasQueued();
    }

    /**
     * Owner: its wait on the ORB's monitor was interrupted. The interrupt is kept as by the mailbox's own wait
     * ({@link CallbackMailbox#await}): set again before a callback runs, or when the call returns.
     */
    public void interrupted() {
        interruptPending = true;
        kept = InterruptStatus.keepOwnWhileSuspended() || kept;
    }

    /** Owner, outside the ORB's monitor: runs the queued callbacks in order, each bound to its class. */
    public void runQueued() {
        for (CallbackInvocation next = box.poll(); next != null; next = box.poll()) {
            if (interruptPending) {
                interruptPending = false;
                if (!kept || InterruptStatus.takeBackOwn()) {
                    Thread.currentThread().interrupt();
                }
                kept = false;
            }
            ARMED.set(null); // the callback's own calls arm their own waits
            try {
                next.run();
            } finally {
                ARMED.set(this);
            }
            if (Thread.interrupted()) {
                interruptPending = true;
                kept = InterruptStatus.keepOwnWhileSuspended();
            }
        }
    }

    private void reassertInterrupt() {
        if (interruptPending && (!kept || InterruptStatus.takeBackOwn())) {
            Thread.currentThread().interrupt();
        }
        interruptPending = false;
        kept = false;
    }

    /** Server thread, after queueing a callback: wakes the owner if it waits on an ORB monitor or condition. */
    private void wake() {
        Object m = monitor;
        if (m instanceof LockWait w) {
            w.lock.lock();
            try {
                w.condition.signalAll();
            } finally {
                w.lock.unlock();
            }
        } else if (m != null) {
            synchronized (m) {
                m.notifyAll();
            }
        }
    }
}
