package org.dthreads.monitor.internal.callbacks;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.dthreads.ClassScope;
import org.dthreads.internal.KernelLink;

/**
 * One incoming call handed by the thread that received it (the <em>server</em>: an RMI connection thread, an ORB
 * worker) to the original thread of its class
 * (the <em>runner</em>), in {@code -Ddthreads.callbacks=original} mode.
 *
 * <h2>Concurrency</h2>
 * {@link #state} is the only shared mutable word; it moves once out of {@code QUEUED}, by CAS:
 * <pre>
 *   QUEUED --runner: start()-------> STARTED --runner: run() ends--> DONE
 *   QUEUED --server: withdraw() (queue bound) or runner's mailbox closing: withdraw()--> WITHDRAWN
 * </pre>
 * So exactly one thread runs the invocation: the runner if its {@code start()} won, else the server (which
 * then serves it as in take-over mode). {@link #result} and {@link #failure} are written by the runner before
 * its volatile write of {@code DONE} and read by the server after reading {@code DONE} (happens-before through
 * {@code state}). Whoever moves the state wakes the server ({@code unpark}); the server re-checks the state
 * after every {@code park}, so a spurious or early wake-up is harmless.
 */
final class CallbackInvocation {

    private static final int QUEUED = 0;
    private static final int STARTED = 1;
    private static final int DONE = 2;
    private static final int WITHDRAWN = 3;

    private final long threadClass;
    private final CallbackCall call;
    private final Thread server;
    private final AtomicInteger state = new AtomicInteger(QUEUED);
    private Object result;      // runner -> server, published by state DONE
    private Throwable failure;  // runner -> server, published by state DONE

    CallbackInvocation(long threadClass, CallbackCall call, Thread server) {
        this.threadClass = threadClass;
        this.call = call;
        this.server = server;
    }

    /** Runner: claims the invocation; false if the server already took it back. */
    boolean start() {
        return state.compareAndSet(QUEUED, STARTED);
    }

    /** Runner, after a successful {@link #start()}: runs the call bound to its class and hands back the outcome. */
    void run() {
        try (ClassScope scope = KernelLink.bind(threadClass)) {
            result = call.call();
        } catch (Throwable t) {
            failure = t;
        } finally {
            state.set(DONE);
            LockSupport.unpark(server);
        }
    }

    /** Either side, while still queued: takes it back for the server. False if the runner has claimed it. */
    boolean withdraw() {
        if (state.compareAndSet(QUEUED, WITHDRAWN)) {
            LockSupport.unpark(server);
            return true;
        }
        return false;
    }

    /**
     * Server: waits until the runner is done, or takes the invocation back when it was not started within
     * {@code queueNanos} or the runner's mailbox closed. An interrupt of the server does not end the wait (the
     * runner is running the call); it is re-asserted on return.
     *
     * @return true if the runner ran it (see {@link #outcome()}); false if the server must run it itself
     */
    boolean awaitRunner(long queueNanos) {
        long deadline = System.nanoTime() + queueNanos;
        boolean interrupted = false;
        try {
            for (;;) {
                int s = state.get();
                if (s == DONE) {
                    return true;
                }
                if (s == WITHDRAWN) {
                    return false;
                }
                if (s == QUEUED) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        if (withdraw()) {
                            return false;
                        }
                        continue; // the runner claimed it just now
                    }
                    LockSupport.parkNanos(this, left);
                } else {
                    LockSupport.park(this); // STARTED: the runner runs it, however long it takes
                }
                if (Thread.interrupted()) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Server, after {@link #awaitRunner} returned true: the call's result, or its exception thrown. */
    Object outcome() throws Throwable {
        if (failure != null) {
            throw failure;
        }
        return result;
    }

    long threadClass() {
        return threadClass;
    }
}
