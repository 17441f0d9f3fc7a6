package org.dthreads.iiop.internal;

import org.dthreads.ThreadClass;
import org.dthreads.internal.KernelLink;
import org.dthreads.internal.RateLimitedLog;

/**
 * Server side of the ORB-internal fast paths: what {@link ServerIdentityInterceptor} does in
 * {@code receive_request} and the ending points, called instead around the ORB's own dispatch of one
 * request, on the thread that runs the servant. The binding is kept in the same per-thread stack
 * ({@link ServerBindings}), so nested requests, diagnostics and tests see the same state on both paths.
 *
 * <p>Stateless; thread-confined state only (the stack). Never throws: a failure is logged (rate-limited)
 * and the request runs with the thread's own class.
 */
final class FastServerSide {

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(org.dthreads.iiop.DThreadsOrbInitializer.class);

    private FastServerSide() {}

    /**
     * Binds the caller's class to this thread for {@code request}.
     *
     * @param request the ORB's request object, the key of the binding (identity)
     * @param body the identity context's body, or null if the request carries none
     * @param operation the operation, for log lines
     */
    static void enter(Object request, byte[] body, String operation) {
        long threadClass = ThreadClass.NONE;
        try {
            if (body != null) {
                threadClass = IdentityContext.decode(body);
                if (threadClass == ThreadClass.NONE) {
                    LOG.warn("malformed-context", "dthreads: malformed identity service context "
                            + IdentityContext.ID_HEX + " on operation '" + operation + "' ("
                            + IdentityContext.problem(body) + "); serving the request as a fresh class");
                }
            }
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
        }
        enter(request, threadClass, operation);
    }

    /**
     * Binds {@code threadClass} (a fresh class if {@link ThreadClass#NONE}) to this thread for {@code request}.
     */
    static void enter(Object request, long threadClass, String operation) {
        try {
            if (threadClass == ThreadClass.NONE) {
                threadClass = KernelLink.freshClass();
            }
            ServerBindings bindings = ServerBindings.current();
            long previous = KernelLink.boundClass();
            bindings.push(new ServerBindings.Entry(request, KernelLink.bind(threadClass), previous));
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
            LOG.error("server-bind-failed", "dthreads: could not bind the caller's class for operation '"
                    + operation + "'; the request runs with the thread's own class: " + t);
        }
    }

    /**
     * Restores the binding this thread had before {@link #enter} of {@code request}.
     *
     * @return whether this thread held a binding for {@code request}
     */
    static boolean exit(Object request, String operation) {
        try {
            int leaked = ServerBindings.current().pop(request);
            if (leaked > 0) {
                LOG.warn("server-leaked-binding", "dthreads: " + leaked + " inner request binding(s) on thread '"
                        + Thread.currentThread().getName() + "' had no ending point; closed with the outer request '"
                        + operation + "'");
            }
            return leaked >= 0;
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
            LOG.error("server-unbind-failed", "dthreads: could not unbind after operation '" + operation + "': " + t);
            return false;
        }
    }
}
