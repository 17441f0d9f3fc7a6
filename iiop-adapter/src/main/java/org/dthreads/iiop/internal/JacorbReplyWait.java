package org.dthreads.iiop.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import org.dthreads.monitor.internal.callbacks.CallbackOrbWait;

/**
 * JacORB's reply wait opened to callbacks, in {@code -Ddthreads.callbacks=original} mode ({@link JacorbReplyWaitPatch}):
 * a caller sends and waits for its own reply, and runs the callbacks of its class that arrive meanwhile, with no
 * helper thread ({@link org.dthreads.monitor.internal.callbacks.CallbackOrbWait}).
 *
 * <p>JacORB 3.x waits in {@code ReplyPlaceholder.getInputStream(boolean)}:
 * {@code synchronized (lock) { while (!ready && now < deadline) lock.wait(ms); ... }}. The patch renames that
 * method to {@code getInputStream$dthreads}, its code unchanged but for the {@code lock.wait(ms)}, which calls
 * {@link #await} instead, and the method with the original name calls {@link #getInputStream}. When the thread has
 * an armed wait, {@link #await} leaves the loop by throwing {@link CallbackOrbWait#CALLBACK_QUEUED} once a callback
 * is queued (javac's handler of the {@code synchronized} block releases {@code lock} on the way out);
 * {@link #getInputStream} runs the callbacks outside {@code lock} and calls the original again
 * ({@link CallbackOrbWait#runOriginal}, shared with {@link GlassFishReplyWait}). A callback must never run under
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
        CallbackOrbWait wait = CallbackOrbWait.current();
        if (wait == null) {
            return h.original.invoke(placeholder, policyTimeout);
        }
        int configured = (int) h.timeout.get(placeholder);
        if (configured <= 0) {
            return wait.runOriginal(() -> h.original.invoke(placeholder, policyTimeout), null);
        }
        long start = System.currentTimeMillis();
        try {
            return wait.runOriginal(() -> h.original.invoke(placeholder, policyTimeout), () -> {
                long left = configured - (System.currentTimeMillis() - start);
                h.timeout.set(placeholder, (int) Math.max(1, Math.min(left, configured)));
            });
        } finally {
            h.timeout.set(placeholder, configured);
        }
    }

    /**
     * In place of {@code lock.wait(millis)} in the original loop (the caller holds {@code lock}): waits, or throws
     * {@link CallbackOrbWait#CALLBACK_QUEUED} when the thread has an armed wait and a callback is queued for it.
     */
    public static void await(Object lock, long millis) throws InterruptedException {
        CallbackOrbWait wait = CallbackOrbWait.current();
        if (wait == null) {
            lock.wait(millis);
            return;
        }
        wait.beforeWait(lock);
        try {
            lock.wait(millis);
        } catch (InterruptedException e) {
            wait.interrupted();
        }
        wait.afterWait();
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
