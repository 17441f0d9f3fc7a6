package org.dthreads.monitor.internal.callbacks;

import java.lang.invoke.MethodHandle;
import org.dthreads.ThreadClass;
import org.dthreads.internal.RateLimitedLog;

/**
 * Server side of {@code -Ddthreads.callbacks=original}: called (only when {@link CallbackMode#ORIGINAL}) by every
 * JRMP twin before it binds the caller's class, and by the IIOP fast paths before the ORB dispatches a request
 * to its servant. If a thread of this site waits in an outgoing call of that class ({@link CallbackMailbox}),
 * the invocation is handed to it and the receiving thread waits for the outcome; otherwise the caller goes
 * on as in take-over mode.
 *
 * <p>The twin passes the plain remote method as a direct method handle and the arguments boxed:
 * <pre>
 *   if (CallbackMode.ORIGINAL) {
 *       Object r = CallbackHandOff.offer(c, this, &lt;handle of m&gt;, new Object[] {a, b});
 *       if (r != CallbackHandOff.NOT_HANDED) return (R) r;
 *   }
 *   ... bind c, call m ...
 * </pre>
 *
 * <p>Runs on the bootstrap path; JDK and dthreads-api types only. Never throws anything but the call's own
 * outcome: without a waiting thread, or when the waiting thread does not start the call within
 * {@link CallbackMode#QUEUE_NANOS} or stops waiting first (its own reply came, its call failed: the orphan
 * rule), the server thread serves the call itself.
 */
public final class CallbackHandOff {

    /** Returned when the call was not handed over: the twin serves it on this thread. */
    public static final Object NOT_HANDED = new Object();

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(CallbackHandOff.class);

    private CallbackHandOff() {}

    /**
     * Runs {@code method} on {@code target} with {@code args} on the thread of this site that waits in an
     * outgoing call of {@code threadClass}, if there is one, and returns its result or throws its exception.
     *
     * @return the result, or {@link #NOT_HANDED} if the caller must serve the call itself
     */
    public static Object offer(long threadClass, Object target, MethodHandle method, Object[] args) throws Throwable {
        CallbackMailbox box = waitingBox(threadClass);
        if (box == null) {
            return NOT_HANDED;
        }
        return handOff(box, threadClass, () -> {
            Object[] all = new Object[args.length + 1];
            all[0] = target;
            System.arraycopy(args, 0, all, 1, args.length);
            return method.invokeWithArguments(all);
        });
    }

    /**
     * Runs {@code call} on the thread of this site that waits in an outgoing call of {@code threadClass}, if
     * there is one (bound to {@code threadClass} there), and returns its result or throws its exception.
     *
     * @return the result, or {@link #NOT_HANDED} if the caller must run {@code call} itself
     */
    public static Object offer(long threadClass, CallbackCall call) throws Throwable {
        CallbackMailbox box = waitingBox(threadClass);
        return box == null ? NOT_HANDED : handOff(box, threadClass, call);
    }

    private static CallbackMailbox waitingBox(long threadClass) {
        if (!ThreadClass.isValid(threadClass)) {
            return null; // the caller's binding logs it
        }
        CallbackMailbox box = CallbackMailbox.waitingFor(threadClass);
        return box == null || box.owner() == Thread.currentThread() ? null : box;
    }

    private static Object handOff(CallbackMailbox box, long threadClass, CallbackCall call) throws Throwable {
        CallbackInvocation invocation = new CallbackInvocation(threadClass, call, Thread.currentThread());
        if (!box.offer(invocation)) {
            return NOT_HANDED;
        }
        if (!invocation.awaitRunner(CallbackMode.QUEUE_NANOS)) {
            LOG.warn("callback-not-taken", "dthreads: a callback of class " + ThreadClass.format(threadClass)
                    + " was not taken by its original thread \"" + box.owner().getName()
                    + "\" (it stopped waiting, or ran another callback of its class for longer than"
                    + " dthreads.callbacks.queueMillis); serving it on \"" + Thread.currentThread().getName()
                    + "\" in take-over mode");
            return NOT_HANDED;
        }
        return invocation.outcome();
    }
}
