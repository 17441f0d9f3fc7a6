package org.dthreads.iiop.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.concurrent.TimeUnit;
import org.dthreads.monitor.internal.callbacks.CallbackOrbWait;

/**
 * JacORB's reply wait opened to callbacks, in {@code -Ddthreads.callbacks=original} mode ({@link JacorbReplyWaitPatch}):
 * a caller sends and waits for its own reply, and runs the callbacks of its class that arrive meanwhile, with no
 * helper thread ({@link CallbackOrbWait}).
 *
 * <p>JacORB 3.x waits in {@code ReplyPlaceholder.getInputStream(boolean)}:
 * {@code synchronized (lock) { while (!ready && now < deadline) lock.wait(ms); ... }}. The patch renames that
 * method to {@code getInputStream$dthreads}, its code unchanged but for the {@code lock.wait(ms)}, which calls
 * {@link #await} instead, and the method with the original name calls {@link #getInputStream}. When the thread has
 * an armed wait, {@link #await} leaves the loop by throwing {@link CallbackOrbWait#CALLBACK_QUEUED} once a callback is queued
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
 * <p>CORBA Messaging timeouts (issue 18; {@code IiopOriginalTimeoutTest}) hold as in take-over mode:
 * <ul>
 *   <li>JacORB's timer thread waits on the same {@code lock} and took any wake-up for its deadline, so the wake-up
 *       of a queued callback ended the call with {@code TIMEOUT} at once; its wait is patched to
 *       {@link #timerWait}, which waits on until the deadline, the reply or the placeholder's end.</li>
 *   <li>A callback runs with an empty JacORB invocation context ({@code Delegate.getInvocationContext()}, a
 *       per-thread stack whose top holds the waiting call's request and reply end times), as on an ORB thread;
 *       the caller's stack is put back afterwards. Otherwise the calls the callback makes would take the waiting
 *       call's deadline (and pop its entry).</li>
 *   <li>A reply that came in time while the caller ran callbacks is returned: JacORB checks the reply end time
 *       again once the reply is in ({@code ReplyReceiver.checkTimeout}, meant for the interceptors' time), so the
 *       time the caller spent in callbacks after its reply was in is added to the placeholder's
 *       {@code replyEndTime} (a copy; the {@code UtcT} is shared) before the original returns the reply.</li>
 * </ul>
 *
 * <p>Stateless but for the handles, resolved through the lookup the patched method passes (private access to
 * {@code ReplyPlaceholder}; resolved again when another copy of JacORB calls).
 */
public final class JacorbReplyWait {

    private static volatile Handles handles;

    private static volatile TimerHandles timerHandles;

    /**
     * {@code invocationContext}: {@code Delegate.getInvocationContext()}, or null; {@code endTime}: the reply end
     * time of {@code ReplyReceiver}, or null if this JacORB has none.
     */
    private record Handles(Class<?> owner, MethodHandle original, VarHandle timeout, VarHandle ready,
            MethodHandle invocationContext, EndTime endTime) {}

    /** {@code ReplyReceiver.replyEndTime} and what copies its {@code UtcT} with a later {@code time}. */
    private record EndTime(Class<?> receiver, VarHandle field, MethodHandle time, MethodHandle inacclo,
            MethodHandle inacchi, MethodHandle tdf, MethodHandle create) {

        /** Moves the placeholder's reply end time {@code nanos} later (owner thread, the reply is in). */
        void postpone(Object placeholder, long nanos) throws Throwable {
            if (!receiver.isInstance(placeholder)) {
                return;
            }
            Object end = field.get(placeholder);
            if (end != null) {
                long later = (long) time.invoke(end) + nanos / 100; // UtcT: 100 ns units
                field.set(placeholder, create.invoke(later, (int) inacclo.invoke(end), (short) inacchi.invoke(end),
                        (short) tdf.invoke(end)));
            }
        }
    }

    private record TimerHandles(Class<?> owner, VarHandle awakened, VarHandle outer, VarHandle ready) {}

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
        long start = System.currentTimeMillis();
        long[] late = {0}; // ns spent in callbacks that ended with the reply in
        try {
            Object in = wait.runOriginal(() -> h.original.invoke(placeholder, policyTimeout),
                    () -> late[0] += runQueued(wait, h, placeholder), configured <= 0 ? null : () -> {
                        long left = configured - (System.currentTimeMillis() - start);
                        h.timeout.set(placeholder, (int) Math.max(1, Math.min(left, configured)));
                    });
            if (late[0] > 0 && policyTimeout && h.endTime != null) {
                h.endTime.postpone(placeholder, late[0]);
            }
            return in;
        } finally {
            if (configured > 0) {
                h.timeout.set(placeholder, configured);
            }
        }
    }

    /**
     * Runs the queued callbacks outside {@code lock} with an empty JacORB invocation context, the caller's put
     * back afterwards; returns the ns they took if the reply was in when they ended, else 0.
     */
    @SuppressWarnings("unchecked")
    private static long runQueued(CallbackOrbWait wait, Handles h, Object placeholder) throws Throwable {
        long t0 = System.nanoTime();
        ArrayDeque<Object> stack = h.invocationContext == null ? null : (ArrayDeque<Object>) h.invocationContext.invoke();
        Object[] saved = stack == null || stack.isEmpty() ? null : stack.toArray();
        if (saved != null) {
            stack.clear();
        }
        try {
            wait.runQueued();
        } finally {
            if (saved != null) {
                stack.clear();
                Collections.addAll(stack, saved);
            }
        }
        return (boolean) h.ready.getVolatile(placeholder) ? System.nanoTime() - t0 : 0;
    }

    /**
     * In place of {@code lock.wait(millis)} in JacORB's {@code ReplyReceiver$Timer.run()} (the timer holds
     * {@code lock}; {@code millis > 0}): waits until {@code millis} have passed, the reply has come
     * ({@code awakened}) or the placeholder is done ({@code ready}: cancelled, retried). Any other wake-up, a
     * queued callback's among them, is not the deadline. An interrupt ends the wait as before.
     */
    public static void timerWait(Object lock, long millis, Object timer, MethodHandles.Lookup lookup)
            throws InterruptedException {
        TimerHandles t;
        try {
            t = timerHandles(lookup);
        } catch (ReflectiveOperationException e) {
            lock.wait(millis);
            return;
        }
        Object placeholder = t.outer.get(timer);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        for (long left = millis; left > 0; ) {
            lock.wait(left);
            if ((boolean) t.awakened.get(timer) || (boolean) t.ready.get(placeholder)) {
                return;
            }
            long nanos = deadline - System.nanoTime();
            left = nanos <= 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(nanos + 999_999); // rounded up: never 0 early
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
            ClassLoader loader = owner.getClassLoader();
            Class<?> stream = Class.forName("org.jacorb.orb.giop.MessageInputStream", false, loader);
            h = new Handles(owner,
                    lookup.findVirtual(owner, JacorbReplyWaitPatch.METHOD + JacorbPatch.SUFFIX,
                            MethodType.methodType(stream, boolean.class)),
                    lookup.findVarHandle(owner, JacorbReplyWaitPatch.TIMEOUT_FIELD, int.class),
                    lookup.findVarHandle(owner, JacorbReplyWaitPatch.READY_FIELD, boolean.class),
                    invocationContext(loader), endTime(lookup));
            handles = h;
        }
        return h;
    }

    /** {@code Delegate.getInvocationContext()} (JacORB 3.x), or null. */
    private static MethodHandle invocationContext(ClassLoader loader) {
        try {
            return MethodHandles.publicLookup().findStatic(Class.forName("org.jacorb.orb.Delegate", false, loader),
                    "getInvocationContext", MethodType.methodType(ArrayDeque.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** The handles of {@code ReplyReceiver.replyEndTime} and its {@code UtcT}, or null. */
    private static EndTime endTime(MethodHandles.Lookup placeholderLookup) {
        try {
            ClassLoader loader = placeholderLookup.lookupClass().getClassLoader();
            Class<?> receiver = Class.forName("org.jacorb.orb.ReplyReceiver", false, loader);
            Class<?> utc = Class.forName("org.omg.TimeBase.UtcT", false, loader);
            MethodHandles.Lookup in = MethodHandles.privateLookupIn(receiver, placeholderLookup);
            MethodHandles.Lookup pub = MethodHandles.publicLookup();
            return new EndTime(receiver, in.findVarHandle(receiver, "replyEndTime", utc),
                    pub.findGetter(utc, "time", long.class), pub.findGetter(utc, "inacclo", int.class),
                    pub.findGetter(utc, "inacchi", short.class), pub.findGetter(utc, "tdf", short.class),
                    pub.findConstructor(utc, MethodType.methodType(void.class, long.class, int.class, short.class,
                            short.class)));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static TimerHandles timerHandles(MethodHandles.Lookup lookup) throws ReflectiveOperationException {
        TimerHandles t = timerHandles;
        if (t == null || t.owner != lookup.lookupClass()) {
            Class<?> owner = lookup.lookupClass();
            ClassLoader loader = owner.getClassLoader();
            Class<?> receiver = Class.forName("org.jacorb.orb.ReplyReceiver", false, loader);
            Class<?> placeholder = Class.forName(JacorbReplyWaitPatch.REPLY_PLACEHOLDER.replace('/', '.'), false, loader);
            t = new TimerHandles(owner,
                    lookup.findVarHandle(owner, JacorbReplyWaitPatch.AWAKENED_FIELD, boolean.class),
                    lookup.findVarHandle(owner, JacorbReplyWaitPatch.OUTER_FIELD, receiver),
                    MethodHandles.privateLookupIn(placeholder, lookup).findVarHandle(placeholder,
                            JacorbReplyWaitPatch.READY_FIELD, boolean.class));
            timerHandles = t;
        }
        return t;
    }
}
