package org.dthreads.monitor.internal.callbacks;

import java.lang.reflect.Method;
import java.rmi.Remote;
import java.rmi.server.RemoteRef;
import java.util.concurrent.RejectedExecutionException;
import org.dthreads.ClassScope;
import org.dthreads.internal.KernelLink;
import org.dthreads.internal.RateLimitedLog;

/**
 * An outgoing call in {@code -Ddthreads.callbacks=original} mode. A thread blocked in a socket read cannot be
 * woken to run a callback, so the call itself runs on a helper thread, and the calling thread waits on its
 * {@link CallbackMailbox} for either its reply or a callback of its class to run. Which part of the call moves
 * is the protocol's choice: a JRMP twin call moves whole ({@code RemoteRef.invoke}: marshalling, the socket write
 * and the blocking read of the reply); an IIOP call moves the part from sending the marshalled request to
 * reading the reply (iiop-adapter's fast paths: the ORBs keep per-thread state around the rest).
 *
 * <h2>Concurrency</h2>
 * The helpers ({@link CallHelpers}) are virtual threads for a virtual caller, else platform daemon threads taken
 * from a shared stack of idle ones ({@link CallerHelper}; one per call in flight, idle ones end after 30 s); a helper
 * touches only the call's own arguments and its {@link CallbackReply}, and runs with the caller's context class
 * loader (RMI and the ORBs resolve classes of the reply through it) and bound to the caller's class. The mailbox
 * is opened by the outermost such call of a thread and closed in its {@code finally}, so it lives exactly while the
 * thread waits for some reply; nested
 * calls (made by a callback the thread runs) wait on the same mailbox.
 *
 * <p>Known limit (JRMP): the arguments are marshalled on the helper. An argument whose serialization locks an object
 * the caller holds in native mode (a {@code Vector} passed inside {@code synchronized (vector)}) blocks the
 * helper, as it would in any program that serializes on another thread.
 */
public final class CallbackOutgoingCall {

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(CallbackOutgoingCall.class);

    private CallbackOutgoingCall() {}

    /**
     * Makes {@code ref.invoke(target, twin, args, hash)} with the calling thread taking callbacks of
     * {@code threadClass} meanwhile. Same result and exceptions as the direct call.
     */
    public static Object invoke(RemoteRef ref, Remote target, Method twin, Object[] args, long hash, long threadClass)
            throws Exception {
        try {
            return call(threadClass, () -> ref.invoke(target, twin, args, hash));
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new java.rmi.UnexpectedException("unexpected throwable", new Exception(t));
        }
    }

    /**
     * Runs {@code call} on a helper thread (bound to {@code threadClass}, with the caller's context class loader)
     * while the calling thread takes callbacks of {@code threadClass}; returns its result or throws its exception.
     * Runs it on the calling thread instead when another thread of the class already takes its callbacks here,
     * when a callback running on this thread under another class calls out, or when no helper thread can start.
     */
    public static Object call(long threadClass, CallbackCall call) throws Throwable {
        CallbackMailbox box = CallbackMailbox.current();
        boolean outermost = box == null;
        if (outermost) {
            box = CallbackMailbox.open(threadClass);
            if (box == null) { // another thread of this class takes its callbacks here
                return call.call();
            }
        } else if (box.threadClass() != threadClass) {
            // a callback bound another class and calls out under it: callbacks of that class go take-over
            return call.call();
        }
        try {
            CallbackReply reply = new CallbackReply(Thread.currentThread());
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            try {
                CallHelpers.start(() -> callOnHelper(call, threadClass, loader, reply), reply);
            } catch (RejectedExecutionException | OutOfMemoryError noHelper) {
                LOG.warn("no-call-helper", "dthreads: no helper thread for an outgoing call (" + noHelper
                        + "); calling on the calling thread, whose callbacks then run in take-over mode");
                return call.call();
            }
            box.await(reply);
            return reply.outcome();
        } finally {
            if (outermost) {
                box.close();
            }
        }
    }

    private static void callOnHelper(CallbackCall call, long threadClass, ClassLoader loader, CallbackReply reply) {
        Thread helper = Thread.currentThread();
        ClassLoader own = helper.getContextClassLoader();
        helper.setContextClassLoader(loader);
        // Bound to the caller's class: marshalling an argument that the caller holds the emulated monitor of
        // (a rewritten writeObject locking it) acts for the suspended caller, as on the caller's own thread.
        try (ClassScope scope = KernelLink.bind(threadClass)) {
            reply.record(call.call(), null);
        } catch (Throwable t) {
            reply.record(null, t);
        } finally {
            helper.setContextClassLoader(own);
        }
    }
}
