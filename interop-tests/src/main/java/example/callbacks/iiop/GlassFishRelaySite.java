package example.callbacks.iiop;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.Properties;
import java.util.UUID;
import javax.rmi.CORBA.Stub;
import javax.rmi.PortableRemoteObject;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ORB;

/**
 * The relay of the callbacks-on-the-original-thread tests over RMI-IIOP on the GlassFish ORB (dynamic stubs), with
 * the dthreads ORB initializer (argument {@code dthreads}): {@link IiopRelay#hop} forwards to the next IOR of the
 * route ({@link RelayVisits} for the trail and the modes). Step {@code route A,B,A mode} starts a route from the
 * step's thread.
 */
public final class GlassFishRelaySite implements SiteApp {

    @Override
    public void start(SiteContext ctx) throws Exception {
        System.setProperty("javax.rmi.CORBA.UtilClass", "com.sun.corba.ee.impl.javax.rmi.CORBA.Util");
        System.setProperty("javax.rmi.CORBA.PortableRemoteObjectClass", "com.sun.corba.ee.impl.javax.rmi.PortableRemoteObject");
        System.setProperty("javax.rmi.CORBA.StubClass", "com.sun.corba.ee.impl.javax.rmi.CORBA.StubDelegateImpl");
        Properties props = new Properties();
        props.setProperty("org.omg.CORBA.ORBClass", "com.sun.corba.ee.impl.orb.ORBImpl");
        props.setProperty("org.omg.CORBA.ORBSingletonClass", "com.sun.corba.ee.impl.orb.ORBSingleton");
        props.setProperty("com.sun.corba.ee.ORBServerHost", ctx.host());
        props.setProperty("com.sun.corba.ee.ORBServerPort", "0");
        String timeout = System.getProperty("relay.responseTimeoutMillis"); // the ORB's reply timeout, for orphan tests
        if (timeout != null) {
            props.setProperty("com.sun.corba.ee.transport.ORBWaitForResponseTimeout", timeout);
        }
        if (ctx.args().contains("dthreads")) {
            props.setProperty("org.omg.PortableInterceptor.ORBInitializerClass.org.dthreads.iiop.DThreadsOrbInitializer", "");
        }
        ORB orb = ORB.init(new String[0], props);
        org.omg.PortableServer.POAHelper.narrow(orb.resolve_initial_references("RootPOA")).the_POAManager().activate();
        Node node = new Node(ctx.siteName(), orb);
        PortableRemoteObject.exportObject(node);
        Remote stub = PortableRemoteObject.toStub(node);
        connect(stub, orb);
        String ownIor = orb.object_to_string((org.omg.CORBA.Object) stub);
        ctx.publish("ior", ownIor);
        ctx.step("route", args -> {
            StringBuilder iors = new StringBuilder();
            for (String site : args.get(0).split(",")) {
                iors.append(site.equals(ctx.siteName()) ? ownIor : ctx.peerEndpoint(site, "ior")).append(' ');
            }
            try {
                return node.hop(iors.toString().trim(), 0, UUID.randomUUID().toString(), args.get(1));
            } catch (RemoteException | RuntimeException e) {
                return "failed: " + e;
            }
        });
        ctx.step("journal", args -> node.visits.journal());
    }

    static void connect(Remote stub, ORB orb) {
        if (stub instanceof Stub s) {
            try {
                s.connect(orb);
            } catch (RemoteException alreadyConnected) {
                // fine
            }
        }
    }

    static final class Node implements IiopRelay {
        private final ORB orb;
        private final RelayVisits visits;

        Node(String name, ORB orb) {
            this.orb = orb;
            this.visits = new RelayVisits(name);
        }

        @Override
        public String hop(String route, int index, String token, String mode) throws RemoteException {
            String[] iors = route.split(" ");
            RelayVisits.Step next = index == iors.length - 1 ? null : () -> {
                IiopRelay relay = (IiopRelay) PortableRemoteObject.narrow(orb.string_to_object(iors[index + 1]), IiopRelay.class);
                connect(relay, orb);
                return relay.hop(route, index + 1, token, mode);
            };
            try {
                return visits.visit(token, mode, index, next, null);
            } catch (RemoteException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new RemoteException("hop " + index, e);
            }
        }
    }
}
