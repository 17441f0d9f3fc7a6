package example.zigzag.corba;

import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ORB;
import org.omg.CORBA.ServerRequest;
import org.omg.PortableServer.DynamicImplementation;
import org.omg.PortableServer.POA;

/**
 * The zigzag over CORBA (JacORB, IIOP), as application code: a DSI servant whose {@code forward}
 * holds the servant's monitor while it calls the next site of the route by DII (no IDL compiler
 * needed). Each site's ORB listens on port 0 and publishes its IOR as {@code ior}. Argument
 * {@code dthreads} registers the dthreads interceptor (the whole ORB set-up dthreads needs);
 * without it the site is plain JacORB.
 */
public final class CorbaHopSite implements SiteApp {

    @Override
    public void start(SiteContext ctx) throws Exception {
        ORB orb = Jacorb.orb(ctx, ctx.args().contains("dthreads"));
        Node node = new Node(ctx.siteName(), orb);
        org.omg.CORBA.Object self = Jacorb.rootPoa(orb).servant_to_reference(node);
        ctx.publish("ior", orb.object_to_string(self));
        ctx.step("route", args -> {
            StringBuilder iors = new StringBuilder();
            for (String site : args.get(0).split(",")) {
                iors.append(site.equals(ctx.siteName()) ? orb.object_to_string(self) : ctx.peerEndpoint(site, "ior"))
                        .append(' ');
            }
            return node.forward(iors.toString().trim(), 0, "");
        });
    }

    /** The servant: {@code forward(string route, long index, string trail)}. */
    static final class Node extends DynamicImplementation {
        private final String name;
        private final ORB orb;
        private int visits;
        private long work;

        Node(String name, ORB orb) {
            this.name = name;
            this.orb = orb;
        }

        synchronized String forward(String route, int index, String trail) {
            visits++;
            for (int i = 0; i < 500; i++) {
                work += Integer.toHexString(i ^ visits).hashCode();
            }
            String here = trail + name + "@" + Thread.currentThread().getName().replaceAll("[^A-Za-z]+.*", "");
            System.out.println("hop " + index + ": site " + name + " (CORBA), thread \"" + Thread.currentThread().getName()
                    + "\", class " + org.dthreads.ThreadClass.format(org.dthreads.DThreads.currentClass())
                    + ", holds the monitor of Node(" + name + ")");
            String[] iors = route.split(" ");
            if (index == iors.length - 1) {
                return here;
            }
            return Jacorb.forward(orb, iors[index + 1], route, index + 1, here + " > ");
        }

        @Override
        public void invoke(ServerRequest request) {
            Jacorb.ForwardArgs args = Jacorb.forwardArgs(orb, request);
            Jacorb.reply(orb, request, forward(args.route(), args.index(), args.trail()));
        }

        @Override
        public String[] _all_interfaces(POA poa, byte[] oid) {
            return new String[] {"IDL:example/zigzag/Hop:1.0"};
        }
    }
}
