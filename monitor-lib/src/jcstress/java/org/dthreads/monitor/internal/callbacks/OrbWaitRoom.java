package org.dthreads.monitor.internal.callbacks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.dthreads.ThreadClass;

/**
 * An ORB's reply wait as the GlassFish ORB's patched {@code ResponseWaitingRoomImpl} makes it, for the
 * {@link CallbackOrbWait} stress tests: {@code lock.lock(); try { while (!ready) { beforeWait; awaitNanos; afterWait }
 * } finally { lock.unlock(); }}, left by {@link CallbackOrbWait#CALLBACK_QUEUED} and run again by
 * {@link CallbackOrbWait#runOriginal}; the reply is delivered by a "reader" under the lock with a {@code signal}.
 * Each wait is bounded by {@link #BOUND_NANOS} (long enough that a thread starved by the scheduler on a loaded
 * machine does not pass for a lost wake-up): a wait that runs it out is recorded as one.
 */
final class OrbWaitRoom {
    static final long BOUND_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final AtomicInteger NEXT_CLASS = new AtomicInteger();
    static final Object REPLY = "reply";

    final long threadClass = ThreadClass.of(0x0b17, NEXT_CLASS.incrementAndGet() & 0x7fffffff);
    final ReentrantLock lock = new ReentrantLock();
    final Condition condition = lock.newCondition();
    private boolean ready; // guarded by lock
    volatile boolean ranOut; // a wait ran out its bound
    volatile Thread callbackRanOn;

    /** Owner: the outgoing call; returns its reply. */
    Object call() throws Throwable {
        return CallbackOrbWait.call(threadClass, () -> {
            CallbackOrbWait wait = CallbackOrbWait.current();
            return wait == null ? waitForReply(null) : wait.runOriginal(() -> waitForReply(wait), null);
        });
    }

    private Object waitForReply(CallbackOrbWait wait) {
        lock.lock();
        try {
            while (!ready) {
                if (wait != null) {
                    wait.beforeWait(lock, condition);
                }
                try {
                    if (condition.awaitNanos(BOUND_NANOS) <= 0) {
                        ranOut = true;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return null;
                }
                if (wait != null) {
                    wait.afterWait();
                }
            }
            return REPLY;
        } finally {
            lock.unlock();
        }
    }

    /** Server thread: the callback of the owner's class; 1 = it ran on the owner, 2 = handed back (run here). */
    int callback() throws Throwable {
        Object r = CallbackHandOff.offer(threadClass, () -> {
            callbackRanOn = Thread.currentThread();
            return null;
        });
        if (r == CallbackHandOff.NOT_HANDED) {
            callbackRanOn = Thread.currentThread();
            return 2;
        }
        return 1;
    }

    /** Reader thread: the reply arrives. */
    void reply() {
        lock.lock();
        try {
            ready = true;
            condition.signal();
        } finally {
            lock.unlock();
        }
    }
}
