package org.dthreads.iiop.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;

/**
 * JacORB's reply wait opened to callbacks, in {@code -Ddthreads.callbacks=original} mode ({@link JacorbReplyWaitPatch}):
 * a caller sends and waits for its own reply, and runs the callbacks of its class that arrive meanwhile, with no
 * helper thread ({@link org.dthreads.monitor.internal.callbacks.CallbackOrbWait}).
 *
 * <p>JacORB 3.x waits in {@code ReplyPlaceholder.getInputStream(boolean)}:
 * {@code synchronized (lock) { while (!ready && now < deadline) lock.wait(ms); ... }}. The patch renames that
 * method to {@code getInputStream$dthreads}, its code unchanged but for the {@code lock.wait(ms)}, which calls
 * {@link #await} instead, and the method with the original name calls {@link #getInputStream}. When the thread has
 * an armed wait, {@link #await} leaves the loop by throwing {@link #CALLBACK_QUEUED} once a callback is queued
 * (javac's handler of the {@code synchronized} block releases {@code lock} on the way out); {@link #getInputStream}
 * runs the callbacks outside {@code lock} and calls the original again. A callback must never run under
 * {@code lock}: the connection's reader thread takes it to deliver every reply of the connection.
 *
 * <p>JacORB's semantics stay: readiness, the reply end time (Messaging policies: JacORB's timer notifies
 * {@code lock}), the exceptions after the loop are the original's code. The pending-reply timeout
 * ({@code jacorb.connection.client.pending_reply_timeout}, counted from the first entry) is kept across the
 * re-entries by setting the placeholder's {@code timeout} to what is left of it (at least 1 ms) while the original
 * runs again; only the waiting thread reads that field. An interrupt of the waiting caller is kept as in the
 * mailbox's wait (JacORB's loop would swallow it).
 *
 * <p>Stateless but for the handles, resolved through the lookup the patched method passes (private access to
 * {@code ReplyPlaceholder}; resolved again when another copy of JacORB calls).
 */
public final class JacorbReplyWait {

    /** Thrown by {@link #await} through the original loop when a callback is queued; no stack trace. */
    static final RuntimeException CALLBACK_QUEUED = new RuntimeException("dthreads: a callback is queued", null, false, false) {
        private static final long serialVersionUID = 1L;
    };

    private static volatile Handles handles;

    private record Handles(Class<?> owner, MethodHandle original, VarHandle timeout) {}

    private JacorbReplyWait() {}

    /**
     * The patched {@code getInputStream(boolean)}.
     *
     * @param placeholder the {@code ReplyPlaceholder}
     * @param lookup a lookup of {@code org.jacorb.orb.giop.ReplyPlaceholder} (private access)
     * @return the reply's {@code MessageInputStream}, as the original returns it
     */
    public static Object getInputStream(Object placeholder, boolean policyTimeout, MethodHandles.Lookup lookup)
            throws Throwable {
        Handles h = handles(lookup);
        org.dthreads.monitor.internal.callbacks.CallbackOrbWait wait =
                org.dthreads.monitor.internal.callbacks.CallbackOrbWait.current();
        if (wait == null) {
            return h.original.invoke(placeholder, policyTimeout);
        }
        int configured = (int) h.timeout.get(placeholder);
        long start = System.currentTimeMillis();
        try {
            for (;;) {
                try {
                    Object in = h.original.invoke(placeholder, policyTimeout);
                    wait.runQueued(); // callbacks first, as in the mailbox's wait: none queued stays behind
                    return in;
                } catch (RuntimeException e) {
                    if (e != CALLBACK_QUEUED) {
                        throw e;
                    }
                }
                wait.runQueued();
                if (configured > 0) {
                    long left = configured - (System.currentTimeMillis() - start);
                    h.timeout.set(placeholder, (int) Math.max(1, Math.min(left, configured)));
                }
            }
        } finally {
            if (configured > 0) {
                h.timeout.set(placeholder, configured);
            }
        }
    }

    /**
     * In place of {@code lock.wait(millis)} in the original loop (the caller holds {@code lock}): waits, or throws
     * {@link #CALLBACK_QUEUED} when the thread has an armed wait and a callback is queued for it.
     */
    public static void await(Object lock, long millis) throws InterruptedException {
        org.dthreads.monitor.internal.callbacks.CallbackOrbWait wait =
                org.dthreads.monitor.internal.callbacks.CallbackOrbWait.current();
        if (wait == null) {
            lock.wait(millis);
            return;
        }
        wait.waitingOn(lock);
        if (wait.callbackQueued()) {
            throw CALLBACK_QUEUED;
        }
        try {
            lock.wait(millis);
        } catch (InterruptedException e) {
            wait.interrupted();
        }
        if (wait.callbackQueued()) {
            throw CALLBACK_QUEUED;
        }
    }

    private static Handles handles(MethodHandles.Lookup lookup) throws ReflectiveOperationException {
        Handles h = handles;
        if (h == null || h.owner != lookup.lookupClass()) {
            Class<?> owner = lookup.lookupClass();
            Class<?> stream = Class.forName("org.jacorb.orb.giop.MessageInputStream", false, owner.getClassLoader());
            h = new Handles(owner,
                    lookup.findVirtual(owner, JacorbReplyWaitPatch.METHOD + JacorbPatch.SUFFIX,
                            MethodType.methodType(stream, boolean.class)),
                    lookup.findVarHandle(owner, JacorbReplyWaitPatch.TIMEOUT_FIELD, int.class));
            handles = h;
        }
        return h;
    }
}
