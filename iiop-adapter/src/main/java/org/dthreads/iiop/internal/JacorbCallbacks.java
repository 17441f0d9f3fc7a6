package org.dthreads.iiop.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayDeque;
import java.util.Map;
import org.dthreads.ThreadClass;
import org.dthreads.internal.KernelLink;
import org.dthreads.internal.RateLimitedLog;
import org.dthreads.monitor.internal.callbacks.CallbackHandOff;
import org.dthreads.monitor.internal.callbacks.CallbackOrbWait;
import org.dthreads.monitor.internal.callbacks.CallbackOutgoingCall;
import org.jacorb.orb.Delegate;
import org.jacorb.orb.dsi.ServerRequest;
import org.jacorb.orb.giop.RequestOutputStream;
import org.jacorb.poa.InvocationContext;
import org.omg.CORBA.portable.InputStream;
import org.omg.IOP.ServiceContext;

/**
 * JacORB fast path in {@code -Ddthreads.callbacks=original} mode: what the methods {@link JacorbPatch} patched
 * call instead of the renamed originals when the mode is on (the patch reads the mode once, when it patches).
 *
 * <ul>
 *   <li>Client, {@link #invoke} (in {@code Delegate.invoke_internal}, between {@link JacorbHooks#clientBegin} and
 *       {@link JacorbHooks#clientEnd}, which stay on the calling thread): a synchronous two-way request (or a
 *       oneway with {@code SYNC_WITH_TARGET}: {@link JacorbHooks#awaitsTarget}) on a
 *       fast-path ORB without client interceptors, other than a remote monitor operation, is sent and waited for
 *       by the caller itself, whose reply wait also runs the callbacks of its class ({@link CallbackOrbWait},
 *       {@link JacorbReplyWait}); if this JacORB's reply wait could not be patched ({@link JacorbReplyWaitPatch}),
 *       it is sent, waited for and its reply header read on a helper thread ({@link CallbackOutgoingCall}) while
 *       the caller takes callbacks of its class. The stub marshals the arguments and unmarshals the result on the
 *       calling thread, as always.</li>
 *   <li>Server, {@link #process} (all of {@code RequestProcessor.process()}): a request whose class has a
 *       thread on this site waiting in an outgoing call is dispatched by that thread
 *       ({@link CallbackHandOff}); the request processor thread waits.</li>
 * </ul>
 *
 * <h2>Thread-bound ORB state</h2>
 * <ul>
 *   <li>JacORB's per-thread invocation context ({@code Delegate.getInvocationContext()}, a stack of maps
 *       {@code Delegate.request} pushes with the request's timeouts and {@code invoke_internal} pops): the
 *       helper runs with the caller's top entry on its own stack; if the invocation popped it there, it is
 *       popped from the caller's stack too (what {@code invoke_internal} on the caller would have done).</li>
 *   <li>POA Current: JacORB registers each request processor thread as its own invocation context once
 *       ({@code RPPoolManager}), keyed by thread. The thread that runs a handed request pushes that request
 *       processor as its context for the dispatch and pops it after ({@code Current._addContext} /
 *       {@code _removeContext} keep a stack per thread), so {@code _this()} and POA Current inside the
 *       callback answer for the callback's request, and for the outer request again afterwards.</li>
 *   <li>Portable Interceptors keep per-thread state (PICurrent, the thread-scope current JacORB sets in
 *       {@code process}): on an ORB with client (server) request interceptors no call (callback) is moved; those
 *       run as in take-over mode, and a WARNING says so once per ORB. The one exception is
 *       {@link JacorbInterceptorRule}'s narrow rule: JacORB's own BiDir GIOP interceptors, which keep no per-thread
 *       state, on an ORB without PICurrent slots.</li>
 * </ul>
 * Stateless apart from the two cached handles, resolved through the lookup the patched method passes (it has
 * private access to its own class; resolved again when another copy of JacORB calls). Never throws anything but
 * the invocation's own outcome.
 */
public final class JacorbCallbacks {

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(org.dthreads.iiop.DThreadsOrbInitializer.class);

    private static volatile MethodHandle invokeInternal; // Delegate.invoke_internal$dthreads
    private static volatile MethodHandle processBody;    // RequestProcessor.process$dthreads
    private static volatile Object[] replyWait;          // {Delegate class, whether its ReplyPlaceholder is patched}

    private JacorbCallbacks() {}

    /**
     * Called by the patched {@code Delegate.invoke_internal} instead of its original.
     *
     * @param lookup a lookup of {@code org.jacorb.orb.Delegate} (private access)
     * @return the reply stream, as the original returns it
     */
    public static Object invoke(Object delegate, Object self, Object out, Object replyHandler, boolean async,
            MethodHandles.Lookup lookup) throws Throwable {
        MethodHandle original = invokeInternal;
        if (original == null || original.type().parameterType(0) != lookup.lookupClass()) { // another JacORB copy
            original = lookup.findVirtual(lookup.lookupClass(), JacorbPatch.INVOKE_INTERNAL + JacorbPatch.SUFFIX,
                    MethodType.methodType(InputStream.class, org.omg.CORBA.Object.class,
                            org.omg.CORBA.portable.OutputStream.class, org.omg.Messaging.ReplyHandler.class,
                            boolean.class));
            invokeInternal = original;
        }
        MethodHandle call = original;
        if (!movable(out, replyHandler, async)) {
            return call.invoke(delegate, self, out, replyHandler, async);
        }
        if (replyWaitPatched(lookup.lookupClass())) { // the caller sends and waits itself, taking callbacks
            return CallbackOrbWait.call(KernelLink.currentClass(),
                    () -> call.invoke(delegate, self, out, replyHandler, async));
        }
        ArrayDeque<Map<?, ?>> own = invocationContext();
        Map<?, ?> context = own.peek();
        boolean[] popped = new boolean[1];
        Thread caller = Thread.currentThread();
        try {
            return CallbackOutgoingCall.call(KernelLink.currentClass(), () -> {
                if (Thread.currentThread() == caller) { // not moved after all (see CallbackOutgoingCall.call)
                    return call.invoke(delegate, self, out, replyHandler, async);
                }
                ArrayDeque<Map<?, ?>> helper = invocationContext();
                helper.clear();
                if (context != null) {
                    helper.push(context);
                }
                try {
                    return call.invoke(delegate, self, out, replyHandler, async);
                } finally {
                    popped[0] = context != null && helper.stream().noneMatch(m -> m == context);
                    helper.clear(); // a pool thread: nothing of this call stays behind
                }
            });
        } finally {
            // published by the reply's completion (a volatile write after the helper's finally)
            if (popped[0] && own.peek() == context) {
                own.pop();
            }
        }
    }

    /** Whether the JacORB of {@code delegateClass} has its reply wait patched ({@link JacorbReplyWaitPatch}). */
    private static boolean replyWaitPatched(Class<?> delegateClass) {
        Object[] known = replyWait;
        if (known == null || known[0] != delegateClass) {
            known = new Object[] {delegateClass, JacorbReplyWaitPatch.patched(delegateClass.getClassLoader())};
            replyWait = known;
        }
        return (Boolean) known[1];
    }

    @SuppressWarnings("unchecked")
    private static ArrayDeque<Map<?, ?>> invocationContext() {
        return (ArrayDeque<Map<?, ?>>) (ArrayDeque<?>) Delegate.getInvocationContext();
    }

    /**
     * A synchronous two-way request (or a {@code SYNC_WITH_TARGET} oneway) of a fast-path ORB without client interceptors other than those
     * {@link JacorbInterceptorRule} lets through (their state may be per thread), not a remote monitor operation.
     */
    private static boolean movable(Object out, Object replyHandler, boolean async) {
        try {
            if (replyHandler != null || async || !(out instanceof RequestOutputStream ros)
                    || !JacorbHooks.awaitsTarget(ros) || MonitorRequestHook.OPERATION.equals(ros.operation())) {
                return false; // a remote monitor operation blocks as a monitor does, taking no callbacks (as JRMP's)
            }
            return JacorbFastPath.enabled(ros.orb()) && ros.orb() instanceof org.jacorb.orb.ORB orb
                    && (!orb.hasClientRequestInterceptors() || JacorbInterceptorRule.clientMovable(orb));
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Called by the patched {@code RequestProcessor.process()} instead of its whole body.
     *
     * @param processor the {@code RequestProcessor} (a thread, and the request's POA invocation context)
     * @param request its {@code ServerRequest}
     * @param lookup a lookup of {@code org.jacorb.poa.RequestProcessor} (private access)
     */
    public static void process(Object processor, Object request, MethodHandles.Lookup lookup) throws Throwable {
        MethodHandle original = processBody;
        if (original == null || original.type().parameterType(0) != lookup.lookupClass()) {
            original = lookup.findVirtual(lookup.lookupClass(), JacorbPatch.PROCESS + JacorbPatch.SUFFIX,
                    MethodType.methodType(void.class));
            processBody = original;
        }
        MethodHandle body = original;
        long threadClass = handedClass(request);
        if (threadClass != ThreadClass.NONE) {
            Object r = CallbackHandOff.offer(threadClass, () -> {
                org.jacorb.poa.Current current = ((org.jacorb.orb.ORB) ((ServerRequest) request).get_in().orb())
                        .getPOACurrent();
                Thread runner = Thread.currentThread();
                current._addContext(runner, (InvocationContext) processor);
                try {
                    dispatch(body, processor, request);
                } finally {
                    current._removeContext(runner);
                }
                return null;
            });
            if (r != CallbackHandOff.NOT_HANDED) {
                return;
            }
        }
        dispatch(body, processor, request);
    }

    private static void dispatch(MethodHandle body, Object processor, Object request) throws Throwable {
        JacorbHooks.serverBegin(request);
        try {
            body.invoke(processor);
        } finally {
            JacorbHooks.serverEnd(request);
        }
    }

    /**
     * The class {@code request} carries if a thread of this site may take it (a fast-path ORB without server
     * interceptors other than those {@link JacorbInterceptorRule} lets through, a well-formed identity context),
     * else {@link ThreadClass#NONE}.
     */
    private static long handedClass(Object request) {
        try {
            if (!(request instanceof ServerRequest r) || !JacorbFastPath.enabled(r.get_in().orb())
                    || !(r.get_in().orb() instanceof org.jacorb.orb.ORB orb)
                    || orb.hasServerRequestInterceptors() && !JacorbInterceptorRule.serverMovable(orb)) {
                return ThreadClass.NONE;
            }
            ServiceContext[] contexts = r.getServiceContext();
            if (contexts == null) {
                return ThreadClass.NONE;
            }
            for (ServiceContext sc : contexts) {
                if (sc != null && sc.context_id == IdentityContext.ID && sc.context_data != null) {
                    return IdentityContext.decode(sc.context_data); // malformed: NONE, logged by serverBegin
                }
            }
            return ThreadClass.NONE;
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
            LOG.error("callback-class-unreadable", "dthreads: could not read the class of a request; it is served"
                    + " in take-over mode: " + t);
            return ThreadClass.NONE;
        }
    }
}
