package example.zigzag.mixed;

import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import org.dthreads.junit.SiteApp;
import example.zigzag.corba.Jacorb;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ORB;
import org.omg.CORBA.ServerRequest;
import org.omg.PortableServer.DynamicImplementation;
import org.omg.PortableServer.POA;

/**
 * A site reachable over Java RMI (JRMP) and over CORBA (JacORB), both entries ending in one
 * synchronized {@code forward} on one object. A route names how each hop is reached, e.g.
 * {@code A,rmi:B,corba:C,rmi:A}: A calls B over JRMP, B calls C over IIOP, C calls back A over JRMP
 * while A's first thread holds A's monitor. Argument {@code dthreads} registers the dthreads ORB
 * initializer (with the agent, the whole set-up).
 */
public final class MixedHopSite implements SiteApp {

    private Node node;

    @Override
    public void start(SiteContext ctx) throws Exception {
        ORB orb = Jacorb.orb(ctx, ctx.args().contains("dthreads"));
        POA poa = Jacorb.rootPoa(orb);
        node = new Node(ctx, orb);
        ctx.publish("ior", orb.object_to_string(poa.servant_to_reference(new CorbaEntry(node, orb))));
        MixedHop stub = (MixedHop) UnicastRemoteObject.exportObject(node, 0);
        ctx.createRegistry().rebind("mixed", stub);
        ctx.publish("rmi.host", ctx.host());
        ctx.step("route", args -> node.forward(args.get(0), 0, ""));
    }

    /** The object whose monitor every hop through this site holds. */
    static final class Node implements MixedHop {
        private final SiteContext ctx;
        private final ORB orb;
        private int visits;
        private long work;

        Node(SiteContext ctx, ORB orb) {
            this.ctx = ctx;
            this.orb = orb;
        }

        @Override
        public synchronized String forward(String route, int index, String trail) throws java.rmi.RemoteException {
            visits++;
            for (int i = 0; i < 500; i++) {
                work += Integer.toHexString(i ^ visits).hashCode();
            }
            String[] hops = route.split(",");
            String here = trail + hops[index] + "@" + Thread.currentThread().getName().replaceAll("[^A-Za-z]+.*", "");
            System.out.println("hop " + index + ": " + hops[index] + ", thread \"" + Thread.currentThread().getName()
                    + "\", class " + org.dthreads.ThreadClass.format(org.dthreads.DThreads.currentClass()));
            if (index == hops.length - 1) {
                return here;
            }
            String next = hops[index + 1];
            String protocol = next.substring(0, next.indexOf(':'));
            String site = next.substring(next.indexOf(':') + 1);
            return switch (protocol) {
                case "rmi" -> rmi(site).forward(route, index + 1, here + " > ");
                case "corba" -> corba(site, route, index + 1, here + " > ");
                default -> throw new IllegalArgumentException("unknown protocol " + protocol);
            };
        }

        private MixedHop rmi(String site) throws java.rmi.RemoteException {
            String host = ctx.peerEndpoint(site, "rmi.host");
            int port = Integer.parseInt(ctx.peerEndpoint(site, "rmi.registry.port"));
            try {
                return (MixedHop) LocateRegistry.getRegistry(host, port).lookup("mixed");
            } catch (java.rmi.NotBoundException e) {
                throw new java.rmi.RemoteException("no hop at " + site, e);
            }
        }

        private String corba(String site, String route, int index, String trail) {
            return Jacorb.forward(orb, ctx.peerEndpoint(site, "ior"), route, index, trail);
        }
    }

    /** The CORBA entry: a DSI servant that calls the same node. */
    static final class CorbaEntry extends DynamicImplementation {
        private final Node node;
        private final ORB orb;

        CorbaEntry(Node node, ORB orb) {
            this.node = node;
            this.orb = orb;
        }

        @Override
        public void invoke(ServerRequest request) {
            Jacorb.ForwardArgs args = Jacorb.forwardArgs(orb, request);
            try {
                Jacorb.reply(orb, request, node.forward(args.route(), args.index(), args.trail()));
            } catch (java.rmi.RemoteException e) {
                throw new org.omg.CORBA.TRANSIENT(e.toString());
            }
        }

        @Override
        public String[] _all_interfaces(POA poa, byte[] oid) {
            return new String[] {"IDL:example/zigzag/MixedHop:1.0"};
        }
    }
}
