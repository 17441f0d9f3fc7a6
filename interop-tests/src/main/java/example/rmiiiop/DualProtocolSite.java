package example.rmiiiop;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
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
        ORB orb = GlassFishSiteOrb.startRmiIiop(ctx, ctx.args().contains("dthreads"));
        Node node = new Node(ctx, orb);
        PortableRemoteObject.exportObject(node);
        Remote iiopStub = PortableRemoteObject.toStub(node);
        GlassFishSiteOrb.connect(iiopStub, orb);
        ctx.publish("ior", orb.object_to_string((org.omg.CORBA.Object) iiopStub));
        ctx.createRegistry().rebind("hop", UnicastRemoteObject.exportObject(node, 0));
        ctx.publish("rmi.host", ctx.host());
        ctx.step("route", args -> node.forward(args.get(0), 0, ""));
        ctx.step("stubs", args -> iiopStub.getClass().getName() + " " + Hop.class.getMethods().length);
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
                GlassFishSiteOrb.connect(hop, orb);
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
