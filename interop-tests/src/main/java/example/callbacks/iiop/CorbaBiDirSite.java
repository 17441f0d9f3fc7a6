package example.callbacks.iiop;

import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.jacorb.orb.iiop.ClientIIOPConnection;
import org.jacorb.orb.iiop.ServerIIOPConnection;
import org.jacorb.orb.listener.TCPConnectionEvent;
import org.jacorb.orb.listener.TCPConnectionListener;
import org.omg.BiDirPolicy.BIDIRECTIONAL_POLICY_TYPE;
import org.omg.BiDirPolicy.BOTH;
import org.omg.BiDirPolicy.BidirectionalPolicyValueHelper;
import org.omg.CORBA.Any;
import org.omg.CORBA.ORB;
import org.omg.CORBA.Policy;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;

/**
 * The relay of {@link CorbaRelaySite} on JacORB with real BiDir GIOP, as JacORB's {@code demo/bidir} sets it up:
 * {@code BiDirConnectionInitializer} registered and the servant in a POA with the {@code BiDirPolicy} {@code BOTH}
 * (argument {@code bidir}; without it the initializer only, so callbacks come over a new connection, the control of
 * the connection count). Every site runs the dthreads ORB initializer. A {@link Connections} listener
 * ({@code jacorb.net.tcp_listener}) counts the TCP connections this ORB opened (client side) and accepted (server
 * side): with BiDir the callee calls back over the caller's connection, so the caller's site accepts none. Steps:
 * {@code route A,B,A mode} ({@link RelayVisits}), {@code connections} ({@code opened N, accepted M}).
 */
public final class CorbaBiDirSite implements SiteApp {

    @Override
    public void start(SiteContext ctx) throws Exception {
        Properties props = new Properties();
        props.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        props.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        props.setProperty("OAIAddr", ctx.host());
        props.setProperty("OAPort", "0");
        props.setProperty("jacorb.log.default.verbosity", "1");
        props.setProperty("jacorb.net.tcp_listener", Connections.class.getName());
        props.setProperty("org.omg.PortableInterceptor.ORBInitializerClass.bidir_init",
                "org.jacorb.orb.giop.BiDirConnectionInitializer");
        props.setProperty("org.omg.PortableInterceptor.ORBInitializerClass.org.dthreads.iiop.DThreadsOrbInitializer", "");
        ORB orb = ORB.init(new String[0], props);
        POA root = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
        POA poa = root;
        if (ctx.args().contains("bidir")) {
            Any both = orb.create_any();
            BidirectionalPolicyValueHelper.insert(both, BOTH.value);
            Policy[] policies = {orb.create_policy(BIDIRECTIONAL_POLICY_TYPE.value, both)};
            poa = root.create_POA("BiDirPOA", root.the_POAManager(), policies);
        }
        root.the_POAManager().activate();
        CorbaRelaySite.Node node = new CorbaRelaySite.Node(ctx.siteName(), orb);
        node.oid = poa.activate_object(node);
        node.self = poa.id_to_reference(node.oid);
        ctx.publish("ior", orb.object_to_string(node.self));
        ctx.step("route", args -> {
            StringBuilder iors = new StringBuilder();
            for (String site : args.get(0).split(",")) {
                iors.append(site.equals(ctx.siteName()) ? orb.object_to_string(node.self) : ctx.peerEndpoint(site, "ior"))
                        .append(' ');
            }
            try {
                return node.hop(iors.toString().trim(), 0, UUID.randomUUID().toString(), args.get(1), false);
            } catch (RuntimeException e) {
                return "failed: " + e + (e.getCause() == null ? "" : ", caused by " + e.getCause());
            }
        });
        ctx.step("connections", args -> "opened " + Connections.OPENED.get() + ", accepted " + Connections.ACCEPTED.get());
    }

    /** JacORB's TCP connection events, counted by side (JacORB creates it by name, once per ORB). */
    public static final class Connections implements TCPConnectionListener {
        static final AtomicInteger OPENED = new AtomicInteger();
        static final AtomicInteger ACCEPTED = new AtomicInteger();

        @Override
        public boolean isListenerEnabled() {
            return true;
        }

        @Override
        public void connectionOpened(TCPConnectionEvent e) {
            if (e.getSource() instanceof ServerIIOPConnection) {
                ACCEPTED.incrementAndGet();
            } else if (e.getSource() instanceof ClientIIOPConnection) {
                OPENED.incrementAndGet();
            }
        }

        @Override
        public void connectionClosed(TCPConnectionEvent e) {
            // counted when opened
        }
    }
}
