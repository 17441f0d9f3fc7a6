package example.zigzag.rmi;

import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.List;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;

/**
 * Application code of one site (it uses dthreads only to print the class of each hop): exports a {@link Hop} in a registry. Step
 * {@code route A,B,A} (run on the first site of the route) looks the sites up in their registries
 * and forwards along the route from here, holding this site's monitors.
 */
public final class HopSite implements SiteApp {

    @Override
    public void start(SiteContext ctx) throws Exception {
        Node node = new Node(ctx.siteName());
        Hop stub = (Hop) UnicastRemoteObject.exportObject(node, 0);
        ctx.createRegistry().rebind("hop", stub);
        ctx.publish("rmi.host", ctx.host());
        ctx.step("route", args -> {
            List<Hop> route = new ArrayList<>();
            for (String site : args.get(0).split(",")) {
                if (site.equals(ctx.siteName())) {
                    route.add(stub);
                } else {
                    String host = ctx.peerEndpoint(site, "rmi.host");
                    int port = Integer.parseInt(ctx.peerEndpoint(site, "rmi.registry.port"));
                    route.add((Hop) LocateRegistry.getRegistry(host, port).lookup("hop"));
                }
            }
            return node.forward(route, 0, "");
        });
        ctx.step("visits", args -> Integer.toString(node.visits()));
    }

    /** Synchronized method and synchronized blocks, each with a real body. */
    static final class Node implements Hop {
        private final String name;
        private final List<String> journal = new ArrayList<>();
        private final Object journalLock = new Object();
        private int visits;
        private long work;

        Node(String name) {
            this.name = name;
        }

        @Override
        public synchronized String forward(List<Hop> route, int index, String trail) throws java.rmi.RemoteException {
            visits++;
            for (int i = 0; i < 500; i++) {
                work += Integer.toHexString(i ^ visits).hashCode();
            }
            String here = trail + name + "@" + Thread.currentThread().getName().replaceAll("[^A-Za-z]+.*", "");
            System.out.println("hop " + index + ": site " + name + ", thread \"" + Thread.currentThread().getName()
                    + "\", class " + org.dthreads.ThreadClass.format(org.dthreads.DThreads.currentClass())
                    + ", holds the monitor of Node(" + name + ")");
            synchronized (journalLock) {
                journal.add(here);
            }
            if (index == route.size() - 1) {
                return here;
            }
            synchronized (journalLock) { // held across the remote call too: blocks and methods alike
                return route.get(index + 1).forward(route, index + 1, here + " > ");
            }
        }

        @Override
        public synchronized int visits() {
            return visits;
        }
    }
}
