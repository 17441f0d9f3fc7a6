package org.dthreads.monitor.internal.callbacks;

import java.util.concurrent.locks.LockSupport;

/**
 * The reply of one outgoing call that a helper thread makes for a waiting thread
 * ({@link CallbackOutgoingCall}).
 *
 * <h2>Concurrency</h2>
 * Written once by the helper ({@link #record}, then {@link #publish}; {@link #complete} does both), read by the
 * waiting thread after it sees {@link #done}: {@code result} and {@code failure} are written before the volatile
 * write of {@code done} and read after the volatile read, so they need no lock. The helper wakes the waiter
 * directly after that write ({@code unpark}: one wake-up, no other thread in between); the waiter re-checks
 * {@code done} after every {@code park} ({@link CallbackMailbox#await}). Between {@code record} and
 * {@code publish} the helper may change its own state ({@link CallerHelper#finishCall}): whatever it writes
 * before {@code publish} the waiter sees once it sees {@code done}.
 */
final class CallbackReply {

    private final Thread waiter;
    private Object result;      // helper -> waiter, published by done
    private Throwable failure;  // helper -> waiter, published by done
    private volatile boolean done;

    CallbackReply(Thread waiter) {
        this.waiter = waiter;
    }

    /** Helper: records the outcome, not yet visible to the waiter. */
    void record(Object value, Throwable thrown) {
        result = value;
        failure = thrown;
    }

    /** Helper, after {@link #record}: makes the outcome visible and wakes the waiter. */
    void publish() {
        done = true;
        LockSupport.unpark(waiter);
    }

    /** Helper: records the outcome and wakes the waiter. */
    void complete(Object value, Throwable thrown) {
        record(value, thrown);
        publish();
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
