package org.dthreads.iiop.internal;

import java.util.Arrays;
import org.dthreads.monitor.spi.OutgoingCalls;

/**
 * The two-way requests a thread has sent and not yet seen end, so that the monitor runtime knows the
 * thread is suspended in an outgoing call ({@link OutgoingCalls#begin()} / {@link OutgoingCalls#end()})
 * while it waits for each reply.
 *
 * <p>Per thread (a {@link ThreadLocal} stack of request ids, touched only by its own thread). The ORB
 * runs {@code send_request} and, for synchronous invocations, the {@code receive_*} point on the
 * invoking thread; an end seen on another thread, or for a request this thread did not send, changes
 * nothing. An end for a request below the top of the stack (an inner request whose end never came)
 * also ends the inner ones, so the count cannot drift.
 */
final class PendingReplies {

    private static final ThreadLocal<PendingReplies> CURRENT = ThreadLocal.withInitial(PendingReplies::new);

    private int[] requestIds = new int[4];
    private int depth;

    private PendingReplies() {}

    /**
     * @param requestId the request's id
     * @param target the reference the request was made on: an interrupt of this thread is forwarded to its
     *        site while the reply is pending ({@link OutgoingCalls#begin(Object)})
     */
    static void sent(int requestId, Object target) {
        PendingReplies p = CURRENT.get();
        if (p.depth == p.requestIds.length) {
            p.requestIds = Arrays.copyOf(p.requestIds, p.depth * 2);
        }
        p.requestIds[p.depth++] = requestId;
        OutgoingCalls.begin(target);
    }

    static void ended(int requestId) {
        PendingReplies p = CURRENT.get();
        for (int i = p.depth - 1; i >= 0; i--) {
            if (p.requestIds[i] == requestId) {
                while (p.depth > i) {
                    p.depth--;
                    OutgoingCalls.end();
                }
                return;
            }
        }
    }

    /** For tests: requests this thread is waiting for. */
    static int depth() {
        return CURRENT.get().depth;
    }
}
