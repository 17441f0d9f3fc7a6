package example.rmiiiop;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.Properties;
import javax.rmi.CORBA.Stub;
import javax.rmi.PortableRemoteObject;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ORB;

/**
 * An ordinary RMI-IIOP program on the GlassFish ORB, written as its guides show: one object exported with
 * {@code PortableRemoteObject.exportObject}, its stub from {@code PortableRemoteObject.toStub}, dynamic stubs,
 * the dthreads ORB initializer registered (argument {@code dthreads}); the same object is also exported over
 * JRMP. Nothing here knows about twins. Routes like {@code A,iiop:B,rmi:A} go through its synchronized node.
 */
public final class DualProtocolSite implements SiteApp {

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
        if (ctx.args().contains("dthreads")) {
            props.setProperty("org.omg.PortableInterceptor.ORBInitializerClass.org.dthreads.iiop.DThreadsOrbInitializer", "");
        }
        ORB orb = ORB.init(new String[0], props);
        org.omg.PortableServer.POAHelper.narrow(orb.resolve_initial_references("RootPOA")).the_POAManager().activate();
        Node node = new Node(ctx, orb);
        PortableRemoteObject.exportObject(node);
        Remote iiopStub = PortableRemoteObject.toStub(node);
        connect(iiopStub, orb);
        ctx.publish("ior", orb.object_to_string((org.omg.CORBA.Object) iiopStub));
        ctx.createRegistry().rebind("hop", UnicastRemoteObject.exportObject(node, 0));
        ctx.publish("rmi.host", ctx.host());
        ctx.step("route", args -> node.forward(args.get(0), 0, ""));
        ctx.step("stubs", args -> iiopStub.getClass().getName() + " " + Hop.class.getMethods().length);
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

    /** The node: one monitor, reached over both protocols. */
    static final class Node implements Hop {
        private final SiteContext ctx;
        private final ORB orb;

        Node(SiteContext ctx, ORB orb) {
            this.ctx = ctx;
            this.orb = orb;
        }

        @Override
        public synchronized String forward(String route, int index, String trail) throws RemoteException {
            String[] hops = route.split(",");
            String here = trail + hops[index];
            if (index == hops.length - 1) {
                return here;
            }
            String next = hops[index + 1];
            String protocol = next.substring(0, next.indexOf(':'));
            String site = next.substring(next.indexOf(':') + 1);
            Hop hop;
            if (protocol.equals("iiop")) {
                hop = (Hop) PortableRemoteObject.narrow(orb.string_to_object(ctx.peerEndpoint(site, "ior")), Hop.class);
                connect(hop, orb);
            } else {
                try {
                    hop = (Hop) LocateRegistry.getRegistry(ctx.peerEndpoint(site, "rmi.host"),
                            Integer.parseInt(ctx.peerEndpoint(site, "rmi.registry.port"))).lookup("hop");
                } catch (java.rmi.NotBoundException e) {
                    throw new RemoteException("no hop", e);
                }
            }
            return hop.forward(route, index + 1, here + " > ");
        }
    }
}
