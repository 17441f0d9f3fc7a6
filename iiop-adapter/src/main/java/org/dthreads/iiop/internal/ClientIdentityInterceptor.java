package org.dthreads.iiop.internal;

import org.dthreads.internal.KernelLink;
import org.dthreads.internal.RateLimitedLog;
import org.omg.CORBA.LocalObject;
import org.omg.CORBA.TRANSIENTHelper;
import org.omg.IOP.ServiceContext;
import org.omg.IOP.TAG_INTERNET_IOP;
import org.omg.IOP.TaggedProfile;
import org.omg.PortableInterceptor.ClientRequestInfo;
import org.omg.PortableInterceptor.ClientRequestInterceptor;
import org.omg.PortableInterceptor.LOCATION_FORWARD;
import org.omg.PortableInterceptor.ServerRequestInfo;
import org.omg.PortableInterceptor.TRANSPORT_RETRY;

/**
 * Client side: every request carries the class of the thread that sends it, read from dthreads'
 * own binding ({@link KernelLink#currentClass()}), never from {@code PICurrent}, so a chain that
 * arrived over JRMP or any other adapter keeps its class.
 *
 * <h2>Threading contract</h2>
 * <ul>
 *   <li>One instance per ORB, called concurrently from any thread that invokes; no mutable fields
 *       of its own. {@code send_request} runs on the invoking thread (the ORB calls it there for
 *       synchronous invocations, which is what makes {@code currentClass()} the caller's).</li>
 *   <li>Two-way requests carry {@code currentClass()}. A {@code LOCATION_FORWARD} or
 *       {@code TRANSIENT} retry is a new {@code send_request} on the same thread with the same
 *       binding, so it carries the same class.</li>
 *   <li>Oneway requests ({@code response_expected() == false}) carry a fresh class: the caller
 *       keeps running, so the callee is another logical thread. Except a oneway with {@code SyncScope}
 *       {@code SYNC_WITH_TARGET}: its caller waits until the servant has returned, so it is a two-way here
 *       ({@link #awaitsTarget}; the same rule as {@code JacorbHooks.awaitsTarget}). A retry of the same oneway on the
 *       same thread (after {@code LOCATION_FORWARD}, {@code TRANSPORT_RETRY} or {@code TRANSIENT})
 *       carries the same fresh class again (remembered in a thread-local until the next request).</li>
 *   <li>Implicit operations ({@code _is_a}, {@code _non_existent}, ...) carry the class like any
 *       other: the server may run user code for them (overrides, servant managers), 16 bytes are
 *       cheap, and skipping would only be safe where nothing on the server can block.</li>
 *   <li>Asynchronous invocations: a deferred DII request that the ORB sends from a new thread
 *       (JacORB) carries that thread's new class. An AMI ({@code sendc_}) request is sent from the
 *       caller's thread with {@code response_expected() == true}, and nothing portable tells it apart
 *       from a synchronous one; on JacORB with the agent its send is bracketed by a hook
 *       ({@link PendingReplies#sendingAsynchronously}), and it then carries a fresh class (the caller goes
 *       on: another logical thread) and does not mark the caller as waiting, since its reply ends on
 *       another thread (issue 15 §5). Without the hook (JacORB not patched by the agent, or another
 *       ORB with AMI) it carries the caller's class and the caller stays marked as waiting: a known
 *       limit ({@code docs/architecture.md}).</li>
 *   <li>A two-way call made by a servant of a {@code SINGLE_THREAD_MODEL} POA is reported
 *       (rate-limited warning): that POA cannot dispatch a callback until the call returns.</li>
 *   <li>The interceptor makes no CORBA call of its own (hand-written encoding, no {@code Codec},
 *       no {@code PICurrent}), so it cannot recurse into itself.</li>
 *   <li>From {@code send_request} of a two-way request to its {@code receive_*} point, the sending
 *       thread is marked as waiting for a reply ({@link PendingReplies}, {@code OutgoingCalls}): a
 *       callback of its chain may then act as the owner of the monitors its class holds.</li>
 *   <li>No method throws: a failure is logged (rate-limited) and the request goes without context,
 *       which the server serves as a fresh class.</li>
 * </ul>
 */
public final class ClientIdentityInterceptor extends LocalObject implements ClientRequestInterceptor {

    private static final long serialVersionUID = 1L;

    static final String NAME = "org.dthreads.iiop.client";

    private final transient RateLimitedLog log;

    public ClientIdentityInterceptor(RateLimitedLog log) {
        this.log = log;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void destroy() {}

    @Override
    public void send_request(ClientRequestInfo ri) {
        try {
            long threadClass;
            boolean replied = awaitsTarget(ri);
            boolean awaited = replied && !PendingReplies.sendingAsynchronously();
            if (replied && !awaited) {
                threadClass = KernelLink.freshClass(); // AMI: the caller goes on, the callee is another thread
            } else if (awaited) {
                threadClass = KernelLink.currentClass();
                OnewayClasses.twoWaySent();
                warnIfSingleThreadModel(ri);
            } else {
                threadClass = OnewayClasses.classFor(ri.operation());
            }
            Object peer = awaited ? peerKey(ri) : null;
            byte[] identity = SiteHelloContext.identityBody(threadClass, peer);
            ri.add_request_service_context(new ServiceContext(IdentityContext.ID, identity), true);
            if (SiteHelloContext.flagged(identity)) {
                ri.add_request_service_context(new ServiceContext(SiteHelloContext.ID, SiteHelloContext.own()), true);
                SiteHelloRequests.ask(peer, targetOrNull(ri)); // the reply carries no hello: ask the server
            }
            if (awaited) {
                PendingReplies.sent(ri.request_id(), targetOrNull(ri));
            }
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
            log.error("client-send-failed", "dthreads: could not add the identity context to a request; it goes"
                    + " without one (the server serves it as a fresh class): " + t);
        }
    }

    /**
     * A two-way request, or a oneway with {@code SyncScope} {@code SYNC_WITH_TARGET}, whose caller waits until the
     * target has run it (the GlassFish ORB answers {@code SYNC_WITH_TRANSPORT} for every request).
     */
    private static boolean awaitsTarget(ClientRequestInfo ri) {
        if (ri.response_expected()) {
            return true;
        }
        try {
            return ri.sync_scope() == org.omg.Messaging.SYNC_WITH_TARGET.value;
        } catch (RuntimeException e) {
            return false; // an ORB without the attribute: a oneway
        }
    }

    private void warnIfSingleThreadModel(ClientRequestInfo ri) {
        ServerBindings.Entry serving = ServerBindings.current().innermost();
        if (serving == null || !(serving.request instanceof ServerRequestInfo sri)) {
            return;
        }
        if (serving.singleThreadModel == 0) {
            serving.singleThreadModel = (byte) (ServerIdentityInterceptor.singleThreadModel(sri) ? 1 : 2);
        }
        if (serving.singleThreadModel == 1) {
            log.warn("stm-nested-call", "dthreads: a servant of a SINGLE_THREAD_MODEL POA on thread '"
                    + Thread.currentThread().getName() + "' makes a two-way call ('" + ri.operation()
                    + "'); that POA dispatches nothing else until the call returns, so a callback into it"
                    + " (the A -> B -> A chain) deadlocks. Use ORB_CTRL_MODEL for servants that call out.");
        }
    }

    @Override
    public void send_poll(ClientRequestInfo ri) {}

    @Override
    public void receive_reply(ClientRequestInfo ri) {
        ended(ri, false);
    }

    @Override
    public void receive_exception(ClientRequestInfo ri) {
        boolean retry = false;
        try {
            retry = TRANSIENTHelper.id().equals(ri.received_exception_id());
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
        }
        ended(ri, retry);
    }

    @Override
    public void receive_other(ClientRequestInfo ri) {
        boolean retry = false;
        try {
            short status = ri.reply_status();
            retry = status == LOCATION_FORWARD.value || status == TRANSPORT_RETRY.value;
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
        }
        ended(ri, retry);
    }

    private static void ended(ClientRequestInfo ri, boolean retry) {
        try {
            if (awaitsTarget(ri)) {
                PendingReplies.ended(ri.request_id());
                return;
            }
            OnewayClasses.ended(ri.operation(), retry);
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
        }
    }


    /**
     * The peer a site hello goes to: the endpoint (host and port) of the IIOP profile the request uses, or, for
     * another kind of profile, its bytes. Not the target object's identity: the GlassFish ORB makes a new object
     * for {@code target()} on every request, so that key asked a hello with every call (an extra request each).
     */
    static Object peerKey(ClientRequestInfo ri) {
        try {
            TaggedProfile profile = ri.effective_profile();
            if (profile == null || profile.profile_data == null) {
                return null;
            }
            String endpoint = profile.tag == TAG_INTERNET_IOP.value ? IiopEndpoint.of(profile.profile_data) : null;
            return endpoint != null ? endpoint
                    : "profile " + profile.tag + " " + java.util.Arrays.hashCode(profile.profile_data);
        } catch (RuntimeException e) {
            return null; // no hello with this request; the identity context goes as always
        }
    }

    /** The request's target, for forwarding interrupts; null if the ORB cannot give it (never fails the request). */
    private static Object targetOrNull(ClientRequestInfo ri) {
        try {
            return ri.target();
        } catch (RuntimeException e) {
            return null;
        }
    }
}
