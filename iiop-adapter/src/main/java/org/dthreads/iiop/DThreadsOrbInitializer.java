package org.dthreads.iiop;

import org.dthreads.iiop.internal.ClientIdentityInterceptor;
import org.dthreads.iiop.internal.FastPaths;
import org.dthreads.iiop.internal.IiopMonitorTransport;
import org.dthreads.iiop.internal.MonitorRequests;
import org.dthreads.iiop.internal.ServerIdentityInterceptor;
import org.dthreads.iiop.internal.ThreadPolicyProbe;
import org.omg.CORBA.BAD_INV_ORDER;
import org.dthreads.internal.RateLimitedLog;
import org.omg.CORBA.LocalObject;
import org.omg.PortableInterceptor.ORBInitInfo;
import org.omg.PortableInterceptor.ORBInitInfoPackage.DuplicateName;
import org.omg.PortableInterceptor.ORBInitializer;
import org.omg.PortableServer.THREAD_POLICY_ID;

/**
 * The whole dthreads set-up on an ORB: every request carries the calling thread's class (service
 * context {@code 0x44540001}, see {@code docs/wire-format.md}), bound to the thread that runs the
 * servant. Where the ORB offers a cheaper place than Portable Interceptors it is used and no dthreads
 * interceptor is registered: the GlassFish ORB's own request dispatchers, and JacORB's request path when
 * the dthreads agent patched it. Everywhere else (and with {@code -Ddthreads.iiop.path=portable}) it
 * registers a client and a server request interceptor. The bytes on the wire are the same.
 *
 * <p>Register it the standard way, as an ORB property (the value is ignored):
 *
 * <pre>
 * org.omg.PortableInterceptor.ORBInitializerClass.org.dthreads.iiop.DThreadsOrbInitializer=""
 * </pre>
 *
 * <p>Works with any ORB that implements Portable Interceptors; tested with JacORB 3.9 (IDL) and the
 * GlassFish ORB 4.2.5 (IDL and RMI-IIOP). The ORB calls the methods of this class once each, during
 * {@code ORB.init}, on the thread that initializes the ORB; it never throws.
 */
public final class DThreadsOrbInitializer extends LocalObject implements ORBInitializer {

    private static final long serialVersionUID = 1L;

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(DThreadsOrbInitializer.class);

    /** Called by the ORB (by reflection); applications do not construct it. */
    public DThreadsOrbInitializer() {}

    /**
     * Installs the fast path or registers the interceptors, and (once per JVM) the remote-monitor
     * transport and server: monitor
     * operations on CORBA references and RMI-IIOP stubs in rewritten code then run at the object's site
     * ({@code docs/remote-monitors.md}).
     *
     * @param info the ORB's initialization info
     */
    @Override
    public void pre_init(ORBInitInfo info) {
        try {
            IiopMonitorTransport.register();
            MonitorRequests.install();
        } catch (RuntimeException | LinkageError e) {
            LOG.error("monitor-transport-failed", "dthreads: could not register the IIOP remote-monitor transport;"
                    + " synchronized/wait/notify on CORBA references will fail: " + e);
        }
        try {
            if (FastPaths.install(info)) {
                return; // identity travels through the ORB's own dispatchers: no interceptors
            }
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("fast-path-failed", "dthreads: could not install the ORB-internal fast path; using"
                    + " Portable Interceptors: " + e);
        }
        try {
            info.add_client_request_interceptor(new ClientIdentityInterceptor(LOG));
            info.add_server_request_interceptor(new ServerIdentityInterceptor(LOG));
        } catch (DuplicateName e) {
            LOG.warn("duplicate-initializer", "dthreads: the interceptors are already registered on this ORB ("
                    + e.name + "); registered once");
        } catch (RuntimeException e) {
            LOG.error("initializer-failed", "dthreads: could not register the IIOP interceptors; calls through"
                    + " this ORB carry no thread identity: " + e);
        }
    }

    /** Lets {@code get_server_policy(THREAD_POLICY_ID)} answer on JacORB (see {@link ThreadPolicyProbe}). */
    private static void registerThreadPolicyProbe(ORBInitInfo info) {
        try {
            info.register_policy_factory(THREAD_POLICY_ID.value, new ThreadPolicyProbe());
        } catch (BAD_INV_ORDER alreadyRegistered) {
            // the ORB has its own factory: get_server_policy works without ours
        } catch (RuntimeException e) {
            LOG.warn("policy-probe-failed", "dthreads: cannot detect SINGLE_THREAD_MODEL POAs on this ORB: " + e);
        }
    }

    /**
     * Lets the adapter read a POA's thread policy on ORBs that need a policy factory for that (see
     * {@link ThreadPolicyProbe}); done after every initializer's {@code pre_init}, so an
     * application's own factory for {@code THREAD_POLICY_ID}, if any, wins.
     *
     * @param info the ORB's initialization info
     */
    @Override
    public void post_init(ORBInitInfo info) {
        registerThreadPolicyProbe(info);
    }
}
