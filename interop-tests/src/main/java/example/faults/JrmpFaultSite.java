package example.faults;

import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;

/**
 * A JRMP site for fault scenarios: exports a {@link FaultHop} in a registry on a free port. Each hop
 * holds a monitor (the node's, or a per-chain lock) while it calls the next site of the route, so a
 * chain that comes back to a site is a zigzag.
 *
 * <p>Steps: {@code route ROUTE [CHAIN]} runs one chain from here and returns its trail, or
 * {@code ERR <exception chain>} if the chain failed; {@code parallel ROUTE N} runs N chains at once,
 * each with its own lock, and returns {@code ok=K err=E} and the distinct errors; plus the
 * {@link FaultProbe} steps.
 */
public final class JrmpFaultSite implements SiteApp {

    @Override
    public void start(SiteContext ctx) throws Exception {
        FaultProbe probe = new FaultProbe("example.faults.JrmpFaultSite");
        Node node = new Node(ctx, probe);
        FaultHop stub = (FaultHop) UnicastRemoteObject.exportObject(node, 0);
        node.self = stub;
        ctx.createRegistry().rebind("hop", stub);
        ctx.publish("rmi.host", ctx.host());
        probe.register(ctx);
        ctx.step("route", args -> {
            try {
                return node.forward(args.get(0), 0, "", args.size() > 1 ? args.get(1) : "");
            } catch (Exception e) {
                return "ERR " + FaultProbe.describe(e);
            }
        });
        ctx.step("parallel", args -> parallel(node, args.get(0), Integer.parseInt(args.get(1))));
    }

    static String parallel(Node node, String route, int n) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String chain = "chain-" + i;
                results.add(pool.submit(() -> {
                    try {
                        return node.forward(route, 0, "", chain);
                    } catch (Exception e) {
                        return "ERR " + FaultProbe.describe(e);
                    }
                }));
            }
            int ok = 0;
            List<String> errors = new ArrayList<>();
            for (Future<String> f : results) {
                String r = f.get(120, TimeUnit.SECONDS);
                if (r.startsWith("ERR ")) {
                    if (!errors.contains(r)) {
                        errors.add(r);
                    }
                } else {
                    ok++;
                }
            }
            return "ok=" + ok + " err=" + (n - ok) + (errors.isEmpty() ? "" : " " + errors);
        } finally {
            pool.shutdownNow();
        }
    }

    static final class Node implements FaultHop {
        private final SiteContext ctx;
        private final FaultProbe probe;
        private final Map<String, Object> chainLocks = new ConcurrentHashMap<>();
        private final Map<String, FaultHop> peers = new ConcurrentHashMap<>();
        FaultHop self;
        private long work;

        Node(SiteContext ctx, FaultProbe probe) {
            this.ctx = ctx;
            this.probe = probe;
        }

        @Override
        public String forward(String route, int index, String trail, String chain) throws RemoteException {
            Object lock = chain.isEmpty() ? this : chainLocks.computeIfAbsent(chain, k -> new Object());
            synchronized (lock) {
                probe.entered();
                try {
                    for (int i = 0; i < 200; i++) {
                        work += Integer.toHexString(i ^ index).hashCode();
                    }
                    String[] hops = route.split(",");
                    String here = trail + ctx.siteName() + "@" + Thread.currentThread().getName() + "#"
                            + ThreadClass.format(DThreads.currentClass());
                    if (FaultProbe.gated(hops[index])) {
                        probe.stopAtGate();
                    }
                    if (index == hops.length - 1) {
                        return here;
                    }
                    String next = FaultProbe.siteOf(hops[index + 1]);
                    FaultHop hop = peer(next);
                    try {
                        return hop.forward(route, index + 1, here + " > ", chain);
                    } catch (RemoteException e) {
                        peers.remove(next, hop); // a dead site's stub is not kept (nor its DGC lease renewed)
                        throw e;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new RemoteException("interrupted at the gate", e);
                } finally {
                    probe.left();
                }
            }
        }

        private FaultHop peer(String site) throws RemoteException {
            if (site.equals(ctx.siteName())) {
                return self;
            }
            FaultHop hop = peers.get(site);
            if (hop == null) {
                String host = ctx.peerEndpoint(site, "rmi.host");
                int port = Integer.parseInt(ctx.peerEndpoint(site, "rmi.registry.port"));
                try {
                    hop = (FaultHop) LocateRegistry.getRegistry(host, port).lookup("hop");
                } catch (java.rmi.NotBoundException e) {
                    throw new RemoteException("no hop at " + site, e);
                }
                peers.put(site, hop);
            }
            return hop;
        }
    }
}
