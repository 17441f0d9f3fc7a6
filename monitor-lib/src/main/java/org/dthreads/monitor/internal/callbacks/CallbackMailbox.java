package org.dthreads.monitor.internal.callbacks;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.dthreads.monitor.internal.InterruptStatus;

/**
 * The mailbox of a thread waiting in an outgoing call of its class (JRMP or IIOP), in
 * {@code -Ddthreads.callbacks=original} mode: while its own reply is pending, the thread runs the callbacks of its
 * class that server threads (RMI, ORB) hand it ({@link CallbackHandOff}), one at a time, in the order they arrived.
 *
 * <h2>Concurrency</h2>
 * <ul>
 *   <li>{@link #WAITING} maps a thread class to the mailbox of the one thread of this site that takes its
 *       callbacks: the first thread of the class to open one (normally the only one; a second thread of the class
 *       waiting at the same time, which only take-over fallbacks make, takes none). Insert by
 *       {@code putIfAbsent} from the owner; removal by {@code remove(key, this)} from the owner.</li>
 *   <li>{@link #lock} guards {@link #queue} and {@link #closed}: {@link #offer} adds only while open, and
 *       {@link #close} sets {@code closed} and takes back every queued invocation under the lock, so no
 *       invocation is left in a closed mailbox: each is either run by the owner or handed back to its server
 *       ({@link CallbackInvocation#withdraw()}), which then serves it as in take-over mode (the orphan rule).</li>
 *   <li>Only the owner thread runs invocations and waits. Wake-ups are {@code LockSupport.unpark(owner)} after
 *       the state change (a queued invocation, a reply); the owner re-checks both after every {@code park}, so
 *       no wake-up is lost and a spurious one is harmless. A wake-up meant for the mailbox that reaches the owner
 *       while it runs a callback is at worst a spurious wake-up of whatever that callback parks on, which
 *       {@code LockSupport} callers must tolerate anyway.</li>
 * </ul>
 * Nested calls of the owner (a callback that calls out again) wait on the same mailbox, each for its own reply;
 * the outermost call opens and closes it.
 */
final class CallbackMailbox {

    private static final ConcurrentHashMap<Long, CallbackMailbox> WAITING = new ConcurrentHashMap<>();
    private static final ThreadLocal<CallbackMailbox> CURRENT = new ThreadLocal<>();

    private final long threadClass;
    private final Thread owner = Thread.currentThread();
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<CallbackInvocation> queue = new ArrayDeque<>(); // guarded by lock
    private boolean closed; // guarded by lock
    /** Also called by {@link #offer}, before its unpark: wakes an owner that waits inside an ORB ({@link CallbackOrbWait}). */
    private volatile Runnable waker;

    private CallbackMailbox(long threadClass) {
        this.threadClass = threadClass;
    }

    /** The calling thread's open mailbox, or null. */
    static CallbackMailbox current() {
        return CURRENT.get();
    }

    /**
     * Opens a mailbox for the calling thread as the taker of {@code threadClass}'s callbacks; null if another
     * thread of the class already takes them.
     */
    static CallbackMailbox open(long threadClass) {
        CallbackMailbox box = new CallbackMailbox(threadClass);
        if (WAITING.putIfAbsent(threadClass, box) != null) {
            return null;
        }
        CURRENT.set(box);
        return box;
    }

    /** The mailbox taking {@code threadClass}'s callbacks on this site, or null. */
    static CallbackMailbox waitingFor(long threadClass) {
        return WAITING.get(threadClass);
    }

    long threadClass() {
        return threadClass;
    }

    Thread owner() {
        return owner;
    }

    /** Server thread: queues {@code invocation} for the owner; false if the mailbox has closed. */
    boolean offer(CallbackInvocation invocation) {
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            queue.addLast(invocation);
        } finally {
            lock.unlock();
        }
        Runnable w = waker;
        if (w != null) {
            w.run(); // first: an owner in a Condition wait (GlassFish) woken by the unpark would only park again
        }
        LockSupport.unpark(owner);
        return true;
    }

    /** Owner: sets what {@link #offer} runs before its unpark (null: nothing); returns the previous one. */
    Runnable swapWaker(Runnable next) {
        Runnable previous = waker;
        waker = next;
        return previous;
    }

    /** Whether an invocation is queued (one its server took back may still count). */
    boolean hasQueued() {
        lock.lock();
        try {
            return !queue.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Owner: runs queued callbacks until {@code reply} is complete and no callback is queued (callbacks first:
     * a reply that arrives during a callback waits until the callback ends, and callbacks that are already
     * queued run before the call returns, in order).
     *
     * <p>Interrupts: an interrupt of the owner while it waits does not end the wait (like the socket read of a
     * take-over-mode call, which an interrupt does not end either). The owner must clear its status to park again,
     * so the interrupt is kept for its class ({@link InterruptStatus#keepOwnWhileSuspended}): {@code t.isInterrupted()}
     * reads true meanwhile, as for that socket read. A callback run afterwards starts with the thread's interrupt
     * status set (the callback is where the logical thread is now), and whatever is still pending is re-asserted when
     * this wait returns; an interrupt that a wait or {@code interrupted()} of the class took meanwhile is not (it is
     * delivered once).
     */
    void await(CallbackReply reply) {
        boolean interruptPending = false;
        boolean kept = false; // interruptPending is also kept for the class (InterruptStatus)
        try {
            for (;;) {
                CallbackInvocation next = poll();
                if (next != null) {
                    if (interruptPending) {
                        interruptPending = false;
                        if (!kept || InterruptStatus.takeBackOwn()) {
                            owner.interrupt();
                        }
                        kept = false;
                    }
                    next.run();
                    if (Thread.interrupted()) {
                        interruptPending = true;
                        kept = InterruptStatus.keepOwnWhileSuspended();
                    }
                    continue;
                }
                if (reply.isDone()) {
                    return;
                }
                LockSupport.park(this);
                if (Thread.interrupted()) {
                    interruptPending = true;
                    kept = InterruptStatus.keepOwnWhileSuspended() || kept;
                }
            }
        } finally {
            if (interruptPending && (!kept || InterruptStatus.takeBackOwn())) {
                owner.interrupt();
            }
        }
    }

    /** Owner: the next queued invocation, claimed for running ({@link CallbackInvocation#start()}), or null. */
    CallbackInvocation poll() {
        lock.lock();
        try {
            for (CallbackInvocation i = queue.pollFirst(); i != null; i = queue.pollFirst()) {
                if (i.start()) {
                    return i;
                }
                // its server took it back (queue bound): skip
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** Owner, once its outermost call has returned: no more callbacks; queued ones go back to their servers. */
    void close() {
        lock.lock();
        try {
            closed = true;
            for (CallbackInvocation i = queue.pollFirst(); i != null; i = queue.pollFirst()) {
                i.withdraw();
            }
        } finally {
            lock.unlock();
        }
        WAITING.remove(threadClass, this);
        CURRENT.remove();
    }
}
