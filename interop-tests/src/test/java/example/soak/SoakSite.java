package example.soak;

import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.List;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;

/**
 * Soak site over JRMP: chains of depth 6 through all sites (A,B,C,A,B,C, whichever site's driver starts them)
 * with a synchronized hop at each, and at the end of each chain, inside {@code synchronized (firstHopStub)} (a remote
 * monitor its class already holds at the first site), a hand-off through a wait/notify mailbox drained by this
 * site's consumer thread. Steps: {@code run THREADS SECONDS} (drivers; returns chains, p99 µs), and the probes of
 * {@link SoakKit#probes}.
 */
public final class SoakSite implements SiteApp {

    private final Node node = new Node();
    private final SoakKit.Mailbox mailbox = new SoakKit.Mailbox();
    private final SoakKit.SecondVisits visits = new SoakKit.SecondVisits();

    @Override
    public void start(SiteContext ctx) throws Exception {
        SoakNode self = (SoakNode) UnicastRemoteObject.exportObject(node, 0);
        ctx.createRegistry().rebind("soak", self);
        ctx.publish("rmi.host", ctx.host());
        SoakKit.probes(ctx, mailbox, node::hops, visits);
        ctx.step("run", args -> {
            List<SoakNode> order = new ArrayList<>();
            for (String site : List.of("A", "B", "C")) {
                order.add(site.equals(ctx.siteName()) ? self : (SoakNode) LocateRegistry.getRegistry(
                        ctx.peerEndpoint(site, "rmi.host"), Integer.parseInt(ctx.peerEndpoint(site, "rmi.registry.port")))
                        .lookup("soak"));
            }
            // Every chain takes the sites' monitors in one global order (A, B, C, then re-enters them):
            // chains started in different orders would deadlock by design, dthreads or not.
            List<SoakNode> route = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                route.add(order.get(i % 3));
            }
            SoakNode first = ctx.siteName().equals("A") ? node : route.get(0);
            return SoakKit.drive(Integer.parseInt(args.get(0)), Long.parseLong(args.get(1)),
                    token -> first.hop(route, 0, token));
        });
    }

    /** The hop: synchronized, with real work, calling the next site while holding this site's monitor. */
    final class Node implements SoakNode {
        private long hops;
        private long work;

        @Override
        public synchronized long hop(List<SoakNode> route, int index, long token) throws java.rmi.RemoteException {
            hops++;
            for (int i = 0; i < 50; i++) {
                work += Long.hashCode(token ^ i);
            }
            boolean firstVisit = visits.arrive(index, token);
            try {
                return hopOn(route, index, token);
            } finally {
                if (firstVisit) {
                    visits.left();
                }
            }
        }

        private long hopOn(List<SoakNode> route, int index, long token) throws java.rmi.RemoteException {
            if (index == route.size() - 1) {
                // A remote monitor at the end of the chain: the first hop's node, a stub here, whose monitor
                // this chain's class holds at its site (the first hop is suspended in its call): the remote
                // enter takes it over under a lease, holdsLock asks the site, the exit hands it back.
                SoakNode home = route.get(0);
                synchronized (home) {
                    if (!Thread.holdsLock(home)) {
                        throw new IllegalStateException("the chain's class does not hold its first hop's monitor");
                    }
                    mailbox.put(token);
                }
                return token;
            }
            return route.get(index + 1).hop(route, index + 1, token);
        }

        synchronized long hops() {
            return hops;
        }
    }
}
