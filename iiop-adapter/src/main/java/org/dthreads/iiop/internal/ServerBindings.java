package org.dthreads.iiop.internal;

import java.util.Arrays;
import org.dthreads.ClassScope;

/**
 * The bindings that {@link ServerIdentityInterceptor} opened on the current thread, innermost
 * last: one per request whose {@code receive_request} ran on this thread and whose ending point
 * ({@code send_reply}, {@code send_exception}, {@code send_other}) has not run yet. A thread holds
 * more than one while requests nest on it: a collocated call served on the caller's thread, or a
 * servant whose outgoing call is dispatched back onto the same thread.
 *
 * <p>Confined to its thread (a {@link ThreadLocal}); no synchronization.
 */
final class ServerBindings {

    /** One request's binding. */
    static final class Entry {
        final Object request;
        final ClassScope scope;
        final long previousBound;
        /**
         * The request's reply was created before its servant ran (GlassFish ORB with a skeleton that
         * calls createReply() first): the binding stays until the thread's next request, when the
         * servant has certainly returned (see {@link #closeFinished}).
         */
        boolean replySent;
        /** Set in receive_request: this request's send_reply may come before its servant runs ({@link ReplyTiming}). */
        boolean earlyReplyPossible;
        /** Whether the request's POA is SINGLE_THREAD_MODEL: 0 not asked yet, 1 yes, 2 no. Asked only when the servant calls out. */
        byte singleThreadModel;

        Entry(Object request, ClassScope scope, long previousBound) {
            this.request = request;
            this.scope = scope;
            this.previousBound = previousBound;
        }
    }

    private static final ThreadLocal<ServerBindings> CURRENT = ThreadLocal.withInitial(ServerBindings::new);

    private Entry[] entries = new Entry[4];
    private int size;

    private ServerBindings() {}

    static ServerBindings current() {
        return CURRENT.get();
    }

    void push(Entry e) {
        if (size == entries.length) {
            entries = Arrays.copyOf(entries, size * 2);
        }
        entries[size++] = e;
    }

    /**
     * Closes the binding of {@code request} if this thread holds one, and any inner binding left
     * open above it (whose ending point never came on this thread).
     *
     * @return how many inner bindings had to be closed first, or -1 if this thread holds no
     *     binding for {@code request} (its {@code receive_request} did not run here)
     */
    int pop(Object request) {
        int i = size - 1;
        while (i >= 0 && entries[i].request != request) {
            i--;
        }
        if (i < 0) {
            return -1;
        }
        int leaked = 0;
        while (size > i) {
            Entry e = entries[--size];
            entries[size] = null;
            if (size > i && !e.replySent) {
                leaked++;
            }
            e.scope.close();
        }
        return leaked;
    }

    /**
     * In {@code send_reply}: if the binding of {@code request} belongs to a request whose reply may
     * be created before its servant runs, marks it "reply sent, servant may still run" and keeps it.
     *
     * @return true if the binding was kept (closed later by {@link #closeFinished})
     */
    boolean deferIfEarlyReply(Object request) {
        for (int i = size - 1; i >= 0; i--) {
            Entry e = entries[i];
            if (e.request == request) {
                if (e.earlyReplyPossible && !e.replySent) {
                    e.replySent = true;
                    return true;
                }
                return false;
            }
        }
        return false;
    }

    /**
     * Closes the innermost bindings whose reply was sent early. Called when a new request starts on
     * this thread: on the ORB that sends replies early (GlassFish) a request is never dispatched
     * onto a thread whose servant is still running (its collocated calls run no interceptors).
     */
    void closeFinished() {
        while (size > 0 && entries[size - 1].replySent) {
            Entry e = entries[--size];
            entries[size] = null;
            e.scope.close();
        }
    }

    /** The innermost binding, or null. */
    Entry innermost() {
        return size == 0 ? null : entries[size - 1];
    }

    int size() {
        return size;
    }

    /** Test hook: number of adapter bindings open on the calling thread. */
    static int depthOnThisThread() {
        return current().size;
    }
}
