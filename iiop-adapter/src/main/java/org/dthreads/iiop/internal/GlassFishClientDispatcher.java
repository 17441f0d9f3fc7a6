package org.dthreads.iiop.internal;

import com.sun.corba.ee.impl.encoding.CDRInputObject;
import com.sun.corba.ee.impl.encoding.CDROutputObject;
import com.sun.corba.ee.impl.protocol.ClientRequestDispatcherImpl;
import com.sun.corba.ee.spi.protocol.MessageMediator;
import com.sun.corba.ee.spi.servicecontext.ServiceContextDefaults;
import com.sun.corba.ee.spi.servicecontext.ServiceContexts;
import com.sun.corba.ee.spi.transport.SocketInfo;
import org.dthreads.internal.KernelLink;
import org.dthreads.internal.RateLimitedLog;
import org.omg.CORBA.portable.ApplicationException;
import org.omg.CORBA.portable.RemarshalException;

/**
 * GlassFish ORB fast path, client side: the ORB's own request dispatcher, which also puts the identity
 * context ({@link IdentityContext}) into every request as bytes and marks the caller as waiting for a
 * reply; what {@link ClientIdentityInterceptor} does, without a Portable Interceptor (no request info
 * object, no CDR round trip through {@code add_request_service_context}).
 *
 * <h2>Threading contract</h2>
 * <ul>
 *   <li>One instance per ORB, called concurrently by every invoking thread; no mutable fields.
 *       {@code beginRequest} (and so {@link #addServiceContexts}) and {@link #marshalingComplete} run on
 *       the invoking thread, so {@code currentClass()} is the caller's and the pending-reply mark is
 *       the caller's.</li>
 *   <li>The ORB may hand every request of a connection the same cached {@code ServiceContexts}
 *       object; the context therefore goes into a per-request copy, never into the shared one.</li>
 *   <li>Two-way: the current class; oneway: a fresh class, the same one again for a retry
 *       ({@link OnewayClasses}). A {@code LOCATION_FORWARD} or transport retry is a
 *       {@code RemarshalException} out of {@link #marshalingComplete}; the stub then sends the request
 *       again on the same thread, under the same binding.</li>
 *   <li>From sending a two-way request until {@link #marshalingComplete} returns or throws (the reply,
 *       an exception, a retry), the thread is marked as waiting for the reply ({@link PendingReplies}).</li>
 *   <li>Nothing throws out of dthreads' part: a failure is logged (rate-limited) and the request goes
 *       without context, or unmarked.</li>
 * </ul>
 */
final class GlassFishClientDispatcher extends ClientRequestDispatcherImpl {

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(org.dthreads.iiop.DThreadsOrbInitializer.class);

    @Override
    protected void addServiceContexts(MessageMediator request) {
        super.addServiceContexts(request);
        try {
            long threadClass;
            Object peerKey = null;
            if (request.isOneWay()) {
                threadClass = OnewayClasses.classFor(request.getOperationName());
            } else {
                threadClass = KernelLink.currentClass();
                OnewayClasses.twoWaySent();
                peerKey = peerKey(request);
            }
            byte[] identity = SiteHelloContext.identityBody(threadClass, peerKey);
            ServiceContexts own = request.getRequestServiceContexts().copy();
            own.put(ServiceContextDefaults.makeUnknownServiceContext(IdentityContext.ID, identity));
            if (SiteHelloContext.flagged(identity)) {
                own.put(ServiceContextDefaults.makeUnknownServiceContext(SiteHelloContext.ID, SiteHelloContext.own()));
            }
            request.setRequestServiceContexts(own);
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
            LOG.error("client-send-failed", "dthreads: could not add the identity context to a request; it goes"
                    + " without one (the server serves it as a fresh class): " + t);
        }
    }

    /** The peer a site hello goes to: the request's endpoint (host:port), else its connection. */
    private static Object peerKey(MessageMediator request) {
        try {
            SocketInfo endpoint = request.getContactInfo();
            if (endpoint != null && endpoint.getHost() != null) {
                return "glassfish " + endpoint.getHost() + ":" + endpoint.getPort();
            }
            Object connection = request.getConnection();
            return connection == null ? null : "glassfish connection " + System.identityHashCode(connection);
        } catch (RuntimeException e) {
            return null; // no hello with this request; the identity context goes as always
        }
    }

    @Override
    public CDRInputObject marshalingComplete(Object self, CDROutputObject out)
            throws ApplicationException, RemarshalException {
        MessageMediator request = null;
        boolean twoWay = false;
        try {
            request = out.getMessageMediator();
            twoWay = !request.isOneWay();
            if (twoWay) {
                PendingReplies.sent(request.getRequestId(), self);
                if (request.getRequestServiceContexts().get(SiteHelloContext.ID) != null) {
                    // this request carries a hello (addServiceContexts); the reply carries none: ask the server
                    SiteHelloRequests.ask(peerKey(request), self);
                }
            }
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
            request = null;
        }
        boolean retry = false;
        try {
            return super.marshalingComplete(self, out);
        } catch (RemarshalException e) {
            retry = true;
            throw e;
        } finally {
            if (request != null) {
                ended(request, twoWay, retry);
            }
        }
    }

    private static void ended(MessageMediator request, boolean twoWay, boolean retry) {
        try {
            if (twoWay) {
                PendingReplies.ended(request.getRequestId());
            } else {
                OnewayClasses.ended(request.getOperationName(), retry);
            }
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
        }
    }
}
