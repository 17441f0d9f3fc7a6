package org.dthreads.monitor.internal.callbacks;

import org.dthreads.monitor.internal.InterruptStatus;

/**
 * An outgoing call in {@code -Ddthreads.callbacks=original} mode made on the calling thread itself, for an ORB
 * whose reply wait a protocol adapter can open to callbacks (JacORB's {@code ReplyPlaceholder}, patched by
 * iiop-adapter): no helper thread and no hand-off of the reply, so a call that gets no callback costs no extra
 * wake-up. The ORB's waiting thread, a {@code synchronized (lock) { while (!ready) lock.wait(ms); }} loop, asks
 * {@link #current()} for the armed wait of its thread; while one is armed, it registers its monitor
 * ({@link #waitingOn}), leaves its loop when {@link #callbackQueued()} (the server thread that queues a callback
 * notifies that monitor), runs the callbacks with {@link #runQueued()} <em>outside</em> the monitor (the ORB's
 * reader thread needs it to deliver replies, the callbacks' own nested calls among them), and waits again.
 *
 * <h2>Concurrency</h2>
 * The mailbox ({@link CallbackMailbox}) is opened and closed as by {@link CallbackOutgoingCall}. An instance is
 * used by its owner thread only, except {@link #wake()}, which a server thread runs from
 * {@link CallbackMailbox#offer} after queueing: it notifies {@link #monitor} under it. No lost wake-up: the owner
 * publishes the monitor (volatile) before it reads the queue under the mailbox lock, and reads the queue and
 * starts waiting without leaving the monitor; the server writes the queue under the mailbox lock, then reads the
 * monitor and must take it to notify, which it gets only once the owner waits.
 */
public final class CallbackOrbWait {

    private static final ThreadLocal<CallbackOrbWait> ARMED = new ThreadLocal<>();

    private final CallbackMailbox box;
    private final Runnable waker = this::wake;
    private volatile Object monitor; // the ORB monitor the owner waits on, or null
    private boolean interruptPending; // owner only
    private boolean kept; // interruptPending is also kept for the class (InterruptStatus); owner only

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

    /** Server thread, after queueing a callback: wakes the owner if it waits on an ORB monitor. */
    private void wake() {
        Object m = monitor;
        if (m != null) {
            synchronized (m) {
                m.notifyAll();
            }
        }
    }
}
