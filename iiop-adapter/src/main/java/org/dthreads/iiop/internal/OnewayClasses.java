package org.dthreads.iiop.internal;

import org.dthreads.ThreadClass;
import org.dthreads.internal.KernelLink;

/**
 * The class a oneway request carries: a fresh one (the caller keeps running, so the callee is another
 * logical thread), except for a retry of the same oneway on the same thread (after
 * {@code LOCATION_FORWARD}, {@code TRANSPORT_RETRY} or {@code TRANSIENT}), which carries the same fresh
 * class again. Shared by the portable interceptor and the ORB-internal fast paths.
 *
 * <p>Per thread (a {@link ThreadLocal} remembering the thread's last oneway until its next request);
 * no synchronization.
 */
final class OnewayClasses {

    /** The last oneway sent by this thread, so that its retry keeps its class. Thread-confined. */
    private static final class LastOneway {
        String operation;
        long threadClass;
        /** The oneway's ending point asked for a retry: the next send of the same operation reuses the class. */
        boolean retryArmed;
    }

    private static final ThreadLocal<LastOneway> LAST_ONEWAY = ThreadLocal.withInitial(LastOneway::new);

    private OnewayClasses() {}

    /** The class for a oneway request of {@code operation} sent now by this thread. */
    static long classFor(String operation) {
        LastOneway last = LAST_ONEWAY.get();
        long threadClass;
        if (last.retryArmed && operation.equals(last.operation) && last.threadClass != ThreadClass.NONE) {
            threadClass = last.threadClass;
        } else {
            threadClass = KernelLink.freshClass();
        }
        last.operation = operation;
        last.threadClass = threadClass;
        last.retryArmed = false;
        return threadClass;
    }

    /** A two-way request is being sent by this thread: a later oneway is never a retry of the last one. */
    static void twoWaySent() {
        LAST_ONEWAY.get().retryArmed = false;
    }

    /** The oneway request of {@code operation} ended; {@code retry}: the ORB will send it again. */
    static void ended(String operation, boolean retry) {
        LastOneway last = LAST_ONEWAY.get();
        last.retryArmed = retry && operation.equals(last.operation);
    }
}
