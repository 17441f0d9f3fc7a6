package example.soak;

import example.zigzag.corba.Jacorb;
import java.util.ArrayList;
import java.util.List;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ORB;
import org.omg.CORBA.ServerRequest;
import org.omg.PortableServer.DynamicImplementation;
import org.omg.PortableServer.POA;

/**
 * Soak site over IIOP on JacORB ({@link SoakSite}'s chains): a DSI servant whose synchronized {@code forward(route,
 * index, token)} calls the next site by DII ({@link Jacorb}, the zigzag sites' operation: the route is the sites'
 * IORs, the trail carries the token); at the end of each chain, inside {@code synchronized (firstHop)} (a JacORB
 * reference to the first hop's servant, whose monitor the chain's class holds at its site: a remote monitor over
 * IIOP), the token goes through the wait/notify mailbox. The ORB registers the dthreads interceptor. Steps:
 * {@code run THREADS SECONDS} (drivers; returns chains, p99 µs), and the probes of {@link SoakKit#probes}.
 */
public final class IiopSoakSite implements SiteApp {

    private final SoakKit.Mailbox mailbox = new SoakKit.Mailbox();
    private final SoakKit.SecondVisits visits = new SoakKit.SecondVisits();

    @Override
    public void start(SiteContext ctx) throws Exception {
        ORB orb = Jacorb.orb(ctx, true);
        Node node = new Node(orb);
        String self = orb.object_to_string(Jacorb.rootPoa(orb).servant_to_reference(node));
        ctx.publish("ior", self);
        SoakKit.probes(ctx, mailbox, node::hops, visits);
        ctx.step("run", args -> {
            // one global order of the sites' monitors, as over JRMP (SoakSite)
            List<String> route = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                String site = List.of("A", "B", "C").get(i % 3);
                route.add(site.equals(ctx.siteName()) ? self : ctx.peerEndpoint(site, "ior"));
            }
            String iors = String.join(" ", route);
            boolean firstHere = ctx.siteName().equals("A");
            return SoakKit.drive(Integer.parseInt(args.get(0)), Long.parseLong(args.get(1)), token -> {
                String result = firstHere ? node.forward(iors, 0, Long.toString(token))
                        : Jacorb.forward(orb, route.get(0), iors, 0, Long.toString(token));
                if (!result.equals(Long.toString(token))) {
                    throw new IllegalStateException("chain of token " + token + " returned " + result);
                }
            });
        });
    }

    /** The servant: {@code forward(string route, long index, string token)}, holding its monitor across the call. */
    final class Node extends DynamicImplementation {
        private final ORB orb;
        private long hops;
        private long work;

        Node(ORB orb) {
            this.orb = orb;
        }

        synchronized String forward(String route, int index, String token) {
            hops++;
            for (int i = 0; i < 50; i++) {
                work += token.hashCode() ^ i;
            }
            boolean firstVisit = visits.arrive(index, Long.parseLong(token));
            try {
                return forwardOn(route.split(" "), route, index, token);
            } finally {
                if (firstVisit) {
                    visits.left();
                }
            }
        }

        private String forwardOn(String[] iors, String route, int index, String token) {
            if (index == iors.length - 1) {
                org.omg.CORBA.Object home = orb.string_to_object(iors[0]);
                synchronized (home) {
                    if (!Thread.holdsLock(home)) {
                        throw new IllegalStateException("the chain's class does not hold its first hop's monitor");
                    }
                    mailbox.put(Long.parseLong(token));
                }
                return token;
            }
            return Jacorb.forward(orb, iors[index + 1], route, index + 1, token);
        }

        synchronized long hops() {
            return hops;
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
