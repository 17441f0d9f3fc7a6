package org.dthreads.iiop.internal;

import com.sun.corba.ee.impl.protocol.ServerRequestDispatcherImpl;
import com.sun.corba.ee.impl.transport.SharedCDRContactInfoImpl;
import com.sun.corba.ee.spi.orb.ORB;
import com.sun.corba.ee.spi.protocol.MessageMediator;
import com.sun.corba.ee.spi.servicecontext.ServiceContext;
import com.sun.corba.ee.spi.servicecontext.ServiceContexts;
import com.sun.corba.ee.spi.servicecontext.UnknownServiceContext;
import org.dthreads.ThreadClass;
import org.dthreads.internal.KernelLink;
import org.dthreads.monitor.internal.callbacks.CallbackHandOff;
import org.dthreads.monitor.internal.callbacks.CallbackMode;
import org.omg.CORBA.UNKNOWN;

/**
 * GlassFish ORB fast path, server side: the ORB's own request dispatcher, which binds the caller's class
 * (read from the request's identity context, kept as bytes by the ORB) to the dispatching thread for the
 * whole dispatch — finding the servant, the upcall, the reply — and restores the previous binding in
 * {@code finally}; what {@link ServerIdentityInterceptor} does, without a Portable Interceptor.
 *
 * <p>The binding spans the servant's run whatever the skeleton does (a JacORB-generated skeleton
 * creates its reply before the upcall, which on the portable path needs {@link ReplyTiming}). One
 * instance per ORB, called concurrently by the ORB's worker threads; no mutable fields of its own
 * (per-request state is thread-confined, {@link ServerBindings}). A dispatch the ORB retries
 * (it calls {@code dispatch} again from inside) nests a second binding for the same request.
 *
 * <p>{@code -Ddthreads.callbacks=original}: a request (not collocated) whose class has a thread on this site waiting
 * in an outgoing call is dispatched whole by that thread ({@link CallbackHandOff}), binding included; this worker
 * waits. The ORB's per-thread state of a dispatch (the object adapter's {@code OAInvocationInfo} stack behind POA
 * Current and {@code _this()}, the server interceptors' request stack) is pushed at its start and popped at its
 * end, on the thread that runs it, so it nests on the original thread above the state of whatever that thread was
 * doing (its own dispatch, its outgoing request).
 */
final class GlassFishServerDispatcher extends ServerRequestDispatcherImpl {

    GlassFishServerDispatcher(ORB orb) {
        super(orb);
    }

    @Override
    public void dispatch(MessageMediator request) {
        byte[] body = contextBody(request);
        if (CallbackMode.ORIGINAL && body != null && handedOff(request, body)) {
            return;
        }
        dispatchHere(request, body);
    }

    /** Offers {@code request} to the original thread of its class; true if that thread dispatched it. */
    private boolean handedOff(MessageMediator request, byte[] body) {
        long threadClass = IdentityContext.decode(body); // malformed: NONE, never handed, logged when bound
        Object r;
        try {
            r = CallbackHandOff.offer(threadClass, () -> {
                dispatchHere(request, body);
                return null;
            });
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new UNKNOWN("dthreads: unexpected " + t);
        }
        return r != CallbackHandOff.NOT_HANDED;
    }

    private void dispatchHere(MessageMediator request, byte[] body) {
        String operation = operation(request);
        int collocated = body == null ? collocatedOnThisThread(request) : NOT_COLLOCATED;
        if (collocated == NOT_COLLOCATED) {
            FastServerSide.enter(request, body, operation);
            observeHello(request);
        } else {
            enterCollocated(request, collocated == COLLOCATED_TWO_WAY, operation);
        }
        try {
            super.dispatch(request);
        } finally {
            FastServerSide.exit(request, operation);
            if (collocated == COLLOCATED_TWO_WAY) {
                PendingReplies.ended(request.getRequestId());
            }
        }
    }

    private static final int NOT_COLLOCATED = 0;
    private static final int COLLOCATED_TWO_WAY = 1;
    private static final int COLLOCATED_ONEWAY = 2;

    /**
     * A collocated request that the ORB marshals and serves on the caller's own thread (its shared-CDR
     * path, the default for an object of the same ORB): the ORB's client side here is not
     * {@link GlassFishClientDispatcher}, so the request carries no context, and what the client side
     * does is done here, on the same thread — a two-way call carries the caller's class and marks the
     * caller as waiting for its reply, a oneway a fresh class.
     */
    private static int collocatedOnThisThread(MessageMediator request) {
        try {
            if (!(request.getContactInfo() instanceof SharedCDRContactInfoImpl)) {
                return NOT_COLLOCATED;
            }
            return request.isOneWay() ? COLLOCATED_ONEWAY : COLLOCATED_TWO_WAY;
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
            return NOT_COLLOCATED;
        }
    }

    private static void enterCollocated(MessageMediator request, boolean twoWay, String operation) {
        long threadClass;
        try {
            if (twoWay) {
                threadClass = KernelLink.currentClass();
                OnewayClasses.twoWaySent();
                PendingReplies.sent(request.getRequestId(), null);
            } else {
                threadClass = OnewayClasses.classFor(operation);
            }
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
            threadClass = ThreadClass.NONE;
        }
        FastServerSide.enter(request, threadClass, operation);
    }

    /** A site hello the request carries, if any, to the site's table of peers. */
    private static void observeHello(MessageMediator request) {
        try {
            ServiceContexts contexts = request.getRequestServiceContexts();
            ServiceContext sc = contexts == null ? null : contexts.get(SiteHelloContext.ID);
            if (sc != null) {
                SiteHelloContext.observe(sc instanceof UnknownServiceContext u && u.getData() != null ? u.getData()
                        : new byte[0], SiteHelloContext.peerOf(request));
            }
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
        }
    }

    /** The identity context's body, or null if the request has none (a malformed one is returned as is). */
    private static byte[] contextBody(MessageMediator request) {
        try {
            ServiceContexts contexts = request.getRequestServiceContexts();
            ServiceContext sc = contexts == null ? null : contexts.get(IdentityContext.ID);
            if (sc == null) {
                return null;
            }
            return sc instanceof UnknownServiceContext u && u.getData() != null ? u.getData() : new byte[0];
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
            return new byte[0]; // unreadable: served as a fresh class, logged as malformed
        }
    }

    private static String operation(MessageMediator request) {
        try {
            return request.getOperationName();
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
            return "?";
        }
    }
}
