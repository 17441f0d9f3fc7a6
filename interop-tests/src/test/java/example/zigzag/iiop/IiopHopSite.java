package example.zigzag.iiop;

import example.rmiiiop.GlassFishSiteOrb;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import javax.rmi.CORBA.Stub;
import javax.rmi.CORBA.Tie;
import javax.rmi.CORBA.Util;
import javax.rmi.PortableRemoteObject;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ORB;

/**
 * A site serving one synchronized node over RMI-IIOP (the GlassFish ORB, dynamic stubs) and over
 * JRMP. Routes like {@code A,iiop:B,iiop:A} or {@code A,rmi:B,iiop:A}. Argument {@code dthreads}
 * registers the dthreads ORB initializer.
 */
public final class IiopHopSite implements SiteApp {

    @Override
    public void start(SiteContext ctx) throws Exception {
        ORB orb = GlassFishSiteOrb.startRmiIiop(ctx, ctx.args().contains("dthreads"));
        Node node = new Node(ctx, orb);
        PortableRemoteObject.exportObject(node);
        Tie tie = Util.getTie(node);
        tie.orb(orb);
        ctx.publish("ior", orb.object_to_string(tie.thisObject()));
        Node jrmpNode = new Node(ctx, orb, node);
        ctx.createRegistry().rebind("hop", UnicastRemoteObject.exportObject(jrmpNode, 0));
        ctx.publish("rmi.host", ctx.host());
        ctx.step("route", args -> node.forward(args.get(0), 0, ""));
    }

    /** The node; a second instance for JRMP delegates to the first, so both share one monitor. */
    static final class Node implements IiopHop {
        private final SiteContext ctx;
        private final ORB orb;
        private final Node target;
        private int visits;

        Node(SiteContext ctx, ORB orb) {
            this.ctx = ctx;
            this.orb = orb;
            this.target = null;
        }

        Node(SiteContext ctx, ORB orb, Node target) {
            this.ctx = ctx;
            this.orb = orb;
            this.target = target;
        }

        @Override
        public String forward(String route, int index, String trail) throws java.rmi.RemoteException {
            return target != null ? target.forward(route, index, trail) : forwardHere(route, index, trail);
        }

        private synchronized String forwardHere(String route, int index, String trail) throws java.rmi.RemoteException {
            visits++;
            String[] hops = route.split(",");
            String here = trail + hops[index] + "@" + Thread.currentThread().getName().replaceAll("[^A-Za-z]+.*", "");
            if (index == hops.length - 1) {
                return here;
            }
            String next = hops[index + 1];
            String protocol = next.substring(0, next.indexOf(':'));
            String site = next.substring(next.indexOf(':') + 1);
            IiopHop hop;
            if (protocol.equals("iiop")) {
                hop = (IiopHop) PortableRemoteObject.narrow(orb.string_to_object(ctx.peerEndpoint(site, "ior")), IiopHop.class);
                if (hop instanceof Stub stub) {
                    try {
                        stub.connect(orb);
                    } catch (java.rmi.RemoteException alreadyConnected) {
                        // fine
                    }
                }
            } else {
                try {
                    hop = (IiopHop) LocateRegistry.getRegistry(ctx.peerEndpoint(site, "rmi.host"),
                            Integer.parseInt(ctx.peerEndpoint(site, "rmi.registry.port"))).lookup("hop");
                } catch (java.rmi.NotBoundException e) {
                    throw new java.rmi.RemoteException("no hop", e);
                }
            }
            return hop.forward(route, index + 1, here + " > ");
        }
    }
}
