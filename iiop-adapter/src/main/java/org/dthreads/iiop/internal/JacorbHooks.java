package org.dthreads.iiop.internal;

import org.dthreads.internal.KernelLink;
import org.dthreads.internal.RateLimitedLog;
import org.jacorb.orb.Delegate;
import org.jacorb.orb.dsi.ServerRequest;
import org.jacorb.orb.giop.RequestOutputStream;
import org.omg.CORBA.portable.RemarshalException;
import org.omg.IOP.ServiceContext;

/**
 * JacORB fast path: what the methods patched by {@link JacorbPatch} call. For ORBs on which
 * {@code DThreadsOrbInitializer} installed the fast path ({@link JacorbFastPath#enabled}); calls for any
 * other ORB return at once. Together they do what {@link ClientIdentityInterceptor} and
 * {@link ServerIdentityInterceptor} do, without JacORB's Portable Interceptor machinery (no
 * {@code ClientRequestInfoImpl} / {@code ServerRequestInfoImpl} per request, no {@code PICurrent}).
 *
 * <h2>Threading contract</h2>
 * <ul>
 *   <li>Stateless (the per-thread stacks are {@link PendingReplies}, {@link ServerBindings} and
 *       {@link OnewayClasses}). Called by JacORB on the invoking thread (client, collocated) or on the
 *       request processor thread that runs the servant (server).</li>
 *   <li>Client, {@link #clientBegin} before the request stream is written: a synchronous two-way request
 *       carries the caller's class and marks the caller as waiting for its reply until {@link #clientEnd};
 *       a oneway carries a fresh class (the same again for its retry: {@code RemarshalException} out of
 *       the invocation), except one with {@code SyncScope} {@code SYNC_WITH_TARGET}, which is a two-way here
 *       ({@link #awaitsTarget}); an AMI request ({@code ReplyHandler} given) carries a fresh class and marks
 *       nothing — the caller goes on, the reply comes to another thread. On an ORB that uses the Portable
 *       Interceptor path, an AMI request's send is bracketed ({@link PendingReplies#asynchronousSend}) so that
 *       {@link ClientIdentityInterceptor} treats it the same way.</li>
 *   <li>Collocated call on the caller's thread ({@code servant_preinvoke} returned a servant): the
 *       caller's class is bound again on top (a nested binding, as the interceptors do there) and the
 *       caller is marked as in an outgoing call, until {@code servant_postinvoke}.</li>
 *   <li>Server, around {@code RequestProcessor.process()}: binds the class the request carries (a fresh
 *       one if none; malformed: fresh, rate-limited warning), restores the thread's binding after.</li>
 *   <li>Nothing throws: a failure is logged (rate-limited) and the call goes on without dthreads.</li>
 * </ul>
 */
public final class JacorbHooks {

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(org.dthreads.iiop.DThreadsOrbInitializer.class);

    /** Tokens from {@link #clientBegin} to {@link #clientEnd}: what to undo. */
    private static final Object TWO_WAY = new Object();
    private static final Object ONEWAY = new Object();
    /** An AMI request on an ORB that uses the Portable Interceptor path: only the bracket of its send. */
    private static final Object ASYNCHRONOUS_PORTABLE = new Object();

    private JacorbHooks() {}

    /**
     * @param delegate the {@code org.jacorb.orb.Delegate}
     * @param self the reference invoked
     * @param out the request stream (a {@code RequestOutputStream})
     * @param replyHandler the AMI reply handler, or null for a synchronous call
     * @return a token for {@link #clientEnd}, or null (nothing to undo)
     */
    public static Object clientBegin(Object delegate, Object self, Object out, Object replyHandler) {
        try {
            if (!(out instanceof RequestOutputStream ros)) {
                return null;
            }
            if (!JacorbFastPath.enabled(ros.orb())) {
                if (replyHandler == null) {
                    return null;
                }
                // the interceptors cannot tell an AMI request from a synchronous one: tell them (issue 15 §5)
                PendingReplies.asynchronousSend(true);
                return ASYNCHRONOUS_PORTABLE;
            }
            long threadClass;
            Object token = null;
            if (replyHandler != null) {
                threadClass = KernelLink.freshClass();
            } else if (!awaitsTarget(ros)) {
                threadClass = OnewayClasses.classFor(ros.operation());
                token = ONEWAY;
            } else {
                threadClass = KernelLink.currentClass();
                OnewayClasses.twoWaySent();
                token = TWO_WAY;
                warnIfSingleThreadModel(ros);
            }
            Object peer = token == TWO_WAY ? peerKey(ros) : null;
            byte[] identity = SiteHelloContext.identityBody(threadClass, peer);
            JacorbInlineContext.put(ros, identity); // in the header if it was written inline (issue 22)
            if (SiteHelloContext.flagged(identity)) {
                ros.addServiceContext(new ServiceContext(SiteHelloContext.ID, SiteHelloContext.own()));
                SiteHelloRequests.ask(peer, self); // the reply carries no hello: ask the server for its identity
            }
            if (token == TWO_WAY) {
                PendingReplies.sent(ros.requestId(), self);
            }
            return token;
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
            JacorbInlineContext.abandon(out);
            LOG.error("client-send-failed", "dthreads: could not add the identity context to a request; it goes"
                    + " without one (the server serves it as a fresh class): " + t);
            return null;
        }
    }

    /**
     * Whether the caller waits until the target has run the request: a two-way, or a oneway with {@code SyncScope}
     * {@code SYNC_WITH_TARGET} (JacORB's client waits for its reply in the same reply wait, and JacORB's server
     * sends that reply once the servant has returned: {@code RequestProcessor.run}; GIOP gives it the response flags
     * of a two-way). Such a oneway is a call of the caller's class, as a two-way without a result: the servant runs
     * while the caller waits, never beside it. Every other oneway ({@code SYNC_NONE}, {@code SYNC_WITH_TRANSPORT},
     * {@code SYNC_WITH_SERVER}: acknowledged before the servant runs) is another logical thread.
     */
    static boolean awaitsTarget(RequestOutputStream ros) {
        return ros.response_expected() || ros.syncScope() == org.omg.Messaging.SYNC_WITH_TARGET.value;
    }

    /** The peer a site hello goes to: the request's connection (a new connection gets a hello at once). */
    private static Object peerKey(RequestOutputStream ros) {
        try {
            Object connection = ros.getConnection();
            return connection == null ? null : "jacorb connection " + System.identityHashCode(connection);
        } catch (RuntimeException e) {
            return null; // no hello with this request; the identity context goes as always
        }
    }

    /** What {@code ClientIdentityInterceptor} warns about: a servant of a SINGLE_THREAD_MODEL POA calling out. */
    private static void warnIfSingleThreadModel(RequestOutputStream ros) {
        ServerBindings.Entry serving = ServerBindings.current().innermost();
        if (serving == null || !(serving.request instanceof ServerRequest)) {
            return;
        }
        if (serving.singleThreadModel == 0) {
            serving.singleThreadModel = (byte) (singleThreadModel(ros.orb()) ? 1 : 2);
        }
        if (serving.singleThreadModel == 1) {
            LOG.warn("stm-nested-call", "dthreads: a servant of a SINGLE_THREAD_MODEL POA on thread '"
                    + Thread.currentThread().getName() + "' makes a two-way call ('" + ros.operation()
                    + "'); that POA dispatches nothing else until the call returns, so a callback into it"
                    + " (the A -> B -> A chain) deadlocks. Use ORB_CTRL_MODEL for servants that call out.");
        }
    }

    /** Whether the POA serving this thread's request is SINGLE_THREAD_MODEL (JacORB's own answer, by reflection). */
    private static boolean singleThreadModel(org.omg.CORBA.ORB orb) {
        try {
            org.omg.PortableServer.Current current = org.omg.PortableServer.CurrentHelper.narrow(
                    orb.resolve_initial_references("POACurrent"));
            Object poa = current.get_POA();
            java.lang.reflect.Method m = org.jacorb.poa.POA.class.getDeclaredMethod("isSingleThreadModel");
            m.setAccessible(true);
            return poa instanceof org.jacorb.poa.POA && Boolean.TRUE.equals(m.invoke(poa));
        } catch (Exception | LinkageError e) {
            return false; // no POA request on this thread, or another JacORB: no warning
        }
    }

    /**
     * @param token what {@link #clientBegin} returned
     * @param out the request stream
     * @param failure what the invocation threw, or null
     */
    public static void clientEnd(Object token, Object out, Throwable failure) {
        if (token == null) {
            return;
        }
        try {
            if (token == ASYNCHRONOUS_PORTABLE) {
                PendingReplies.asynchronousSend(false);
                return;
            }
            RequestOutputStream ros = (RequestOutputStream) out;
            if (token == TWO_WAY) {
                PendingReplies.ended(ros.requestId());
            } else {
                OnewayClasses.ended(ros.operation(), failure instanceof RemarshalException);
            }
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
        }
    }

    /**
     * @param delegate the {@code org.jacorb.orb.Delegate}
     * @param self the reference invoked
     * @param servantObject what {@code servant_preinvoke} returned (null: not collocated, nothing to do)
     */
    public static void localBegin(Object delegate, Object self, Object servantObject) {
        if (servantObject == null) {
            return;
        }
        try {
            if (!JacorbFastPath.enabled(((Delegate) delegate).orb((org.omg.CORBA.Object) self))) {
                return;
            }
            long threadClass = KernelLink.currentClass();
            PendingReplies.sent(System.identityHashCode(servantObject), self);
            FastServerSide.enter(servantObject, threadClass, "collocated call");
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
            LOG.error("local-begin-failed", "dthreads: could not bind a collocated call: " + t);
        }
    }

    /** @param servantObject the {@code ServantObject} of the collocated call ending */
    public static void localEnd(Object servantObject) {
        if (servantObject == null) {
            return;
        }
        try {
            if (ServerBindings.current().innermost() != null && FastServerSide.exit(servantObject, "collocated call")) {
                PendingReplies.ended(System.identityHashCode(servantObject));
            }
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
        }
    }

    /** @param request the {@code org.jacorb.orb.dsi.ServerRequest} about to be processed on this thread */
    public static void serverBegin(Object request) {
        try {
            ServerRequest r = (ServerRequest) request;
            // get_in(), not getInputStream(): that one marks the request stream-based, which breaks DSI servants
            if (r == null || !JacorbFastPath.enabled(r.get_in().orb())) {
                return;
            }
            ServiceContext[] contexts = r.getServiceContext();
            FastServerSide.enter(r, contextBody(contexts, IdentityContext.ID), r.operation());
            byte[] hello = contextBody(contexts, SiteHelloContext.ID);
            if (hello != null) {
                SiteHelloContext.observe(hello, SiteHelloContext.peerOf(r));
            }
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
            LOG.error("server-bind-failed", "dthreads: could not bind the caller's class; the request runs with"
                    + " the thread's own class: " + t);
        }
    }

    /** @param request the request whose processing ended on this thread */
    public static void serverEnd(Object request) {
        if (request == null || ServerBindings.current().innermost() == null) {
            return;
        }
        try {
            FastServerSide.exit(request, ((ServerRequest) request).operation());
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
        }
    }

    /** The body of context {@code id}, or null if absent. */
    private static byte[] contextBody(ServiceContext[] contexts, int id) {
        if (contexts == null) {
            return null;
        }
        for (ServiceContext sc : contexts) {
            if (sc != null && sc.context_id == id) {
                return sc.context_data == null ? new byte[0] : sc.context_data;
            }
        }
        return null;
    }
}
