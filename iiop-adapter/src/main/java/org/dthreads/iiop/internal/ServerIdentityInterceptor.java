package org.dthreads.iiop.internal;

import org.dthreads.ThreadClass;
import org.dthreads.internal.KernelLink;
import org.dthreads.internal.RateLimitedLog;
import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.LocalObject;
import org.omg.CORBA.Policy;
import org.omg.IOP.ServiceContext;
import org.omg.PortableInterceptor.ServerRequestInfo;
import org.omg.PortableInterceptor.ServerRequestInterceptor;
import org.omg.PortableServer.THREAD_POLICY_ID;
import org.omg.PortableServer.ThreadPolicy;
import org.omg.PortableServer.ThreadPolicyValue;

/**
 * Server side: binds the caller's class to the thread that runs the servant, for the duration of
 * the request.
 *
 * <h2>Threading contract</h2>
 * <ul>
 *   <li>One instance per ORB, called concurrently by the ORB's request threads; it has no mutable
 *       fields of its own. Per-request state lives in a thread-confined stack
 *       ({@link ServerBindings}).</li>
 *   <li>{@code receive_request} binds: the CORBA Portable Interceptor specification runs it on the
 *       thread that then invokes the servant. {@code receive_request_service_contexts} does
 *       nothing: it need not run on that thread. The servant never has to read {@code PICurrent}
 *       (a JacORB skeleton on the GlassFish ORB clears it).</li>
 *   <li>{@code send_reply}, {@code send_exception} and {@code send_other} unbind, on the thread that
 *       bound. If {@code receive_request} never ran for the request on this thread (an earlier
 *       interceptor or a servant manager failed, a request the ORB answers itself, a location
 *       forward from {@code receive_request_service_contexts}), they change nothing.</li>
 *   <li>Requests nest on one thread (collocated calls, a callback dispatched on the waiting
 *       thread): bindings are a stack, and an ending point closes its own binding and any inner
 *       one whose ending point never came.</li>
 *   <li>A request with no context, or a malformed one, is served as a fresh class; a malformed one
 *       is logged, rate-limited. No method throws: a failure is logged and the request runs
 *       unbound (with the thread's own class).</li>
 * </ul>
 *
 * <p>Implicit operations ({@code _is_a}, {@code _non_existent}, ...) are treated like any other
 * request: a servant may override them, and servant managers run user code for them, so skipping
 * them is not safe in general and saves nothing worth having (one bind and unbind).
 */
public final class ServerIdentityInterceptor extends LocalObject implements ServerRequestInterceptor {

    private static final long serialVersionUID = 1L;

    static final String NAME = "org.dthreads.iiop.server";

    private final transient RateLimitedLog log;

    public ServerIdentityInterceptor(RateLimitedLog log) {
        this.log = log;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void destroy() {}

    @Override
    public void receive_request_service_contexts(ServerRequestInfo ri) {
        // Nothing: this point need not run on the servant's thread.
    }

    @Override
    public void receive_request(ServerRequestInfo ri) {
        try {
            long threadClass = callerClass(ri);
            if (threadClass == ThreadClass.NONE) {
                threadClass = KernelLink.freshClass();
            }
            long previous = KernelLink.boundClass();
            ServerBindings.current().push(new ServerBindings.Entry(ri, KernelLink.bind(threadClass), previous));
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
            log.error("server-bind-failed", "dthreads: could not bind the caller's class for operation '"
                    + safeOperation(ri) + "'; the request runs with the thread's own class: " + t);
        }
    }

    @Override
    public void send_reply(ServerRequestInfo ri) {
        unbind(ri);
    }

    @Override
    public void send_exception(ServerRequestInfo ri) {
        unbind(ri);
    }

    @Override
    public void send_other(ServerRequestInfo ri) {
        unbind(ri);
    }

    private void unbind(ServerRequestInfo ri) {
        try {
            int leaked = ServerBindings.current().pop(ri);
            if (leaked > 0) {
                log.warn("server-leaked-binding", "dthreads: " + leaked + " inner request binding(s) on thread '"
                        + Thread.currentThread().getName() + "' had no ending point; closed with the outer request '"
                        + safeOperation(ri) + "'");
            }
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
            log.error("server-unbind-failed", "dthreads: could not unbind after operation '"
                    + safeOperation(ri) + "': " + t);
        }
    }

    /** The class the request carries, or NONE if it carries none or a malformed one (logged). */
    private long callerClass(ServerRequestInfo ri) {
        ServiceContext sc;
        try {
            sc = ri.get_request_service_context(IdentityContext.ID);
        } catch (BAD_PARAM absent) {
            return ThreadClass.NONE;
        }
        byte[] body = sc == null ? null : sc.context_data;
        long threadClass = IdentityContext.decode(body);
        if (threadClass == ThreadClass.NONE) {
            log.warn("malformed-context", "dthreads: malformed identity service context "
                    + IdentityContext.ID_HEX + " on operation '" + safeOperation(ri) + "' ("
                    + IdentityContext.problem(body) + "); serving the request as a fresh class");
        }
        return threadClass;
    }

    /**
     * Whether the POA that dispatched {@code ri} (a request in progress on this thread) is
     * SINGLE_THREAD_MODEL. Called only when its servant makes an outgoing call: on JacORB the
     * lookup builds the target's reference.
     */
    static boolean singleThreadModel(ServerRequestInfo ri) {
        try {
            Policy p = ri.get_server_policy(THREAD_POLICY_ID.value);
            return p instanceof ThreadPolicy tp && tp.value() == ThreadPolicyValue.SINGLE_THREAD_MODEL;
        } catch (RuntimeException e) {
            return false; // not a POA, or no thread policy: the ORB default (ORB_CTRL_MODEL)
        }
    }

    private static String safeOperation(ServerRequestInfo ri) {
        try {
            return ri.operation();
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
            return "?";
        }
    }

    /**
     * Test and diagnostics hook for the calling thread: {@code [open adapter bindings, class that
     * was bound before the innermost adapter binding (0 = none)]}.
     */
    public static long[] threadState() {
        ServerBindings b = ServerBindings.current();
        ServerBindings.Entry e = b.innermost();
        return new long[] {b.size(), e == null ? ThreadClass.NONE : e.previousBound};
    }
}
