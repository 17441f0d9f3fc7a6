package org.dthreads.iiop.internal;

import com.sun.corba.ee.impl.encoding.CDRInputObject;
import com.sun.corba.ee.impl.encoding.CDROutputObject;
import com.sun.corba.ee.impl.protocol.ClientRequestDispatcherImpl;
import com.sun.corba.ee.impl.protocol.giopmsgheaders.ReplyMessage;
import com.sun.corba.ee.spi.orb.ORB;
import com.sun.corba.ee.spi.protocol.MessageMediator;
import com.sun.corba.ee.spi.servicecontext.ServiceContextDefaults;
import com.sun.corba.ee.spi.servicecontext.ServiceContexts;
import com.sun.corba.ee.impl.transport.ResponseWaitingRoomImpl;
import com.sun.corba.ee.spi.transport.SocketInfo;
import org.dthreads.internal.KernelLink;
import org.dthreads.internal.RateLimitedLog;
import org.dthreads.monitor.internal.callbacks.CallbackMode;
import org.dthreads.monitor.internal.callbacks.CallbackOrbWait;
import org.dthreads.monitor.internal.callbacks.CallbackOutgoingCall;
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
 *   <li>{@code -Ddthreads.callbacks=original} ({@link #marshalingComplete1}): a two-way request (not a remote
 *       monitor operation) is sent and its reply waited for by the caller itself, in the ORB's own reply wait,
 *       which the agent opened to the callbacks of its class ({@link GlassFishReplyWaitPatch},
 *       {@link GlassFishReplyWait}, {@link CallbackOrbWait}): no helper thread. If that wait is not patched (no
 *       agent, another ORB version: logged once by the patch), the send and the wait run on a helper thread
 *       ({@link CallbackOutgoingCall}) while the caller takes callbacks of its class. Only that part moves: the ORB keeps the request's {@code ClientInvocationInfo}, the
 *       Portable Interceptor request stack and the encoding version in per-thread stacks with no way to hand
 *       an entry to another thread, and reads them around it (marshalling, {@code processResponse},
 *       {@code endRequest}) and on a failed send; the failure handling therefore runs back on the caller,
 *       as the ORB's own {@code marshalingComplete1} does it.</li>
 * </ul>
 */
final class GlassFishClientDispatcher extends ClientRequestDispatcherImpl {

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(org.dthreads.iiop.DThreadsOrbInitializer.class);

    /** Whether this ORB's reply wait takes callbacks ({@link GlassFishReplyWaitPatch}; checked once). */
    private static final boolean OWN_REPLY_WAIT = CallbackMode.ORIGINAL
            && GlassFishReplyWaitPatch.patched(ResponseWaitingRoomImpl.class);

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

    /**
     * The ORB's send and wait ({@code finishSendingRequest}, {@code waitForResponse}); in
     * {@code -Ddthreads.callbacks=original} mode, for a two-way request, with the reply wait open to callbacks
     * (patched ORB), else on a helper thread.
     */
    @Override
    public CDRInputObject marshalingComplete1(ORB orb, MessageMediator request)
            throws ApplicationException, RemarshalException {
        if (!CallbackMode.ORIGINAL || request.isOneWay()
                || MonitorRequestHook.OPERATION.equals(request.getOperationName())) { // blocks as a monitor, as JRMP's
            return super.marshalingComplete1(orb, request);
        }
        if (OWN_REPLY_WAIT) {
            return ownReplyWait(orb, request);
        }
        RuntimeException failure;
        try {
            return (CDRInputObject) CallbackOutgoingCall.call(KernelLink.currentClass(), () -> {
                request.finishSendingRequest();
                return request.waitForResponse();
            });
        } catch (RuntimeException e) {
            failure = e;
        } catch (Error e) {
            throw e;
        } catch (Throwable t) {
            failure = new org.omg.CORBA.UNKNOWN("dthreads: unexpected " + t);
        }
        return sendFailed(orb, request, failure);
    }

    /** The ORB's own send and wait on the calling thread, its reply wait running the callbacks of the class. */
    private CDRInputObject ownReplyWait(ORB orb, MessageMediator request)
            throws ApplicationException, RemarshalException {
        try {
            return (CDRInputObject) CallbackOrbWait.call(KernelLink.currentClass(),
                    () -> super.marshalingComplete1(orb, request));
        } catch (ApplicationException | RemarshalException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new org.omg.CORBA.UNKNOWN("dthreads: unexpected " + t);
        }
    }

    /**
     * What the ORB's {@code marshalingComplete1} does when the send or the wait throws, on the calling thread
     * (it reads the thread's invocation info and interceptor stack): tell the contact list, run the interceptors'
     * ending point, then retry ({@code RemarshalException}) or throw.
     */
    private CDRInputObject sendFailed(ORB orb, MessageMediator request, RuntimeException failure)
            throws RemarshalException {
        boolean retry = getContactInfoListIterator(orb).reportException(request.getContactInfo(), failure);
        Exception after = orb.getPIHandler().invokeClientPIEndingPoint(ReplyMessage.SYSTEM_EXCEPTION, failure);
        if (retry) {
            continueOrThrowSystemOrRemarshal(request, after == failure ? new RemarshalException() : after);
            return null;
        }
        if (after instanceof RuntimeException e) {
            throw e;
        }
        if (after instanceof RemarshalException e) {
            throw e;
        }
        throw failure;
    }
}
