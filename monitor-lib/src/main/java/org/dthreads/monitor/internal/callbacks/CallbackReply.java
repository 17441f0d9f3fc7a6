package org.dthreads.monitor.internal.callbacks;

import java.util.concurrent.locks.LockSupport;

/**
 * The reply of one outgoing call that a helper thread makes for a waiting thread
 * ({@link CallbackOutgoingCall}).
 *
 * <h2>Concurrency</h2>
 * Written once by the helper ({@link #complete}), read by the waiting thread after it sees {@link #done}:
 * {@code result} and {@code failure} are written before the volatile write of {@code done} and read after the
 * volatile read, so they need no lock. The helper wakes the waiter after the write; the waiter re-checks
 * {@code done} after every {@code park} ({@link CallbackMailbox#await}).
 */
final class CallbackReply {

    private final Thread waiter;
    private Object result;      // helper -> waiter, published by done
    private Throwable failure;  // helper -> waiter, published by done
    private volatile boolean done;

    CallbackReply(Thread waiter) {
        this.waiter = waiter;
    }

    /** Helper: records the outcome and wakes the waiter. */
    void complete(Object value, Throwable thrown) {
        result = value;
        failure = thrown;
        done = true;
        LockSupport.unpark(waiter);
    }

    boolean isDone() {
        return done;
    }

    /** Waiter, once done: the call's result, or its exception thrown as is. */
    Object outcome() throws Throwable {
        if (failure != null) {
            throw failure;
        }
        return result;
    }
}
