package example.deadlock.rmi;

import example.zigzag.corba.Jacorb;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ORB;
import org.omg.CORBA.Request;
import org.omg.CORBA.ServerRequest;
import org.omg.CORBA.TCKind;
import org.omg.PortableServer.DynamicImplementation;
import org.omg.PortableServer.POA;

/**
 * A site for the wait-for graph's tests (issue 17): one monitor per site (a {@link Node}) and steps that make
 * a real distributed AB-BA, a local AB-BA, and a zigzag paused mid-chain.
 * <ul>
 *   <li>{@code abba PEER}: holds this site's node, reports {@code held}, waits for {@code go}, then calls PEER's
 *       {@code lockYours}, which needs PEER's node; PEER is {@code B} or {@code rmi:B} (JRMP) or {@code corba:B}
 *       (JacORB, DII to a DSI servant: the site needs arguments {@code corba dthreads}). Run on two sites at once: each site's thread holds its own
 *       node and needs the other's, through a server thread of the other site: a cycle no JVM sees alone.</li>
 *   <li>{@code stubAbba PEER}: the same with remote monitors: holds this site's exported object, then
 *       {@code synchronized} on PEER's stub, whose monitor is PEER's exported object (entered at PEER under a
 *       lease).</li>
 *   <li>{@code localAbba}: two threads of this site lock two nodes in opposite orders (never returns).</li>
 *   <li>{@code zigzag PEER HOPS}: holds the node and bounces between this site and PEER, the callbacks taking the
 *       held nodes over (dthreads' causality rule); the last hop pauses until {@code release}.</li>
 *   <li>{@code deadlocked}: the names of this site's deadlocked threads, from
 *       {@link org.dthreads.monitor.Deadlocks#findDeadlockedThreads()}.</li>
 *   <li>{@code contend}: enters this site's node from another class (blocks while the zigzag holds it).</li>
 * </ul>
 * Every synchronized body does real work, as the harness asks of fixtures.
 */
public final class LockSite implements SiteApp {
    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch go = new CountDownLatch(1);
    private final CountDownLatch paused = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void start(SiteContext ctx) throws Exception {
        Node node = new Node(ctx.siteName());
        Server server = new Server(node, this);
        Locker stub = (Locker) UnicastRemoteObject.exportObject(server, 0);
        server.self = stub;
        ctx.createRegistry().rebind("locker", stub);
        ctx.publish("rmi.host", ctx.host());
        ORB orb = ctx.args().contains("corba") ? Jacorb.orb(ctx, ctx.args().contains("dthreads")) : null;
        if (orb != null) {
            ctx.publish("ior", orb.object_to_string(Jacorb.rootPoa(orb).servant_to_reference(new CorbaEntry(server, orb))));
        }
        ctx.step("abba", args -> {
            String peer = args.get(0);
            boolean corba = peer.startsWith("corba:");
            String site = peer.substring(peer.indexOf(':') + 1);
            Locker rmi = corba ? null : lookUp(ctx, site);
            synchronized (node) {
                node.work();
                held.countDown();
                await(go);
                return node.name + " then " + (corba ? lockOverCorba(orb, ctx.peerEndpoint(site, "ior")) : rmi.lockYours());
            }
        });
        ctx.step("stubAbba", args -> {
            Locker peer = lookUp(ctx, args.get(0));
            synchronized (server) { // this site's exported object: what the peer's stub locks
                node.work();
                held.countDown();
                await(go);
                synchronized (peer) { // the peer's object, through its stub: a remote monitor (a lease)
                    return "locked " + args.get(0);
                }
            }
        });
        ctx.step("held", args -> await(held) ? "held" : "not held");
        ctx.step("go", args -> {
            go.countDown();
            return "go";
        });
        ctx.step("localAbba", args -> {
            Node x = new Node("x");
            Node y = new Node("y");
            CountDownLatch both = new CountDownLatch(2);
            Thread one = new Thread(() -> lockInOrder(x, y, both), "abba-one");
            Thread two = new Thread(() -> lockInOrder(y, x, both), "abba-two");
            one.setDaemon(true);
            two.setDaemon(true);
            one.start();
            two.start();
            return "started";
        });
        ctx.step("deadlocked", args -> { // the API, as a health check would call it
            long[] ids = org.dthreads.monitor.Deadlocks.findDeadlockedThreads();
            java.util.List<String> names = new java.util.ArrayList<>();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (ids != null && java.util.Arrays.stream(ids).anyMatch(id -> id == t.getId())) {
                    names.add(t.getName());
                }
            }
            java.util.Collections.sort(names);
            return names.toString();
        });
        ctx.step("zigzag", args -> {
            Locker peer = lookUp(ctx, args.get(0));
            synchronized (node) {
                node.work();
                return peer.bounce(stub, Integer.parseInt(args.get(1)));
            }
        });
        ctx.step("paused", args -> await(paused) ? "paused" : "not paused");
        ctx.step("release", args -> {
            release.countDown();
            return "released";
        });
        ctx.step("contend", args -> {
            synchronized (node) {
                node.work();
                return "entered";
            }
        });
    }

    private static Locker lookUp(SiteContext ctx, String site) throws Exception {
        String host = ctx.peerEndpoint(site, "rmi.host");
        int port = Integer.parseInt(ctx.peerEndpoint(site, "rmi.registry.port"));
        return (Locker) LocateRegistry.getRegistry(host, port).lookup("locker");
    }

    /** {@code lockYours} over IIOP, by DII (no IDL compiler). */
    private static String lockOverCorba(ORB orb, String ior) {
        Request request = orb.string_to_object(ior)._request("lockYours");
        request.set_return_type(orb.get_primitive_tc(TCKind.tk_string));
        request.invoke();
        if (request.env().exception() != null) {
            throw new IllegalStateException("CORBA lockYours failed", request.env().exception());
        }
        return request.return_value().extract_string();
    }

    /** The CORBA entry of the site's {@link Locker}: a DSI servant (JacORB). */
    private static final class CorbaEntry extends DynamicImplementation {
        private final Server server;
        private final ORB orb;

        CorbaEntry(Server server, ORB orb) {
            this.server = server;
            this.orb = orb;
        }

        @Override
        public void invoke(ServerRequest request) {
            if (!request.operation().equals("lockYours")) {
                throw new org.omg.CORBA.BAD_OPERATION(request.operation());
            }
            request.arguments(orb.create_list(0));
            Jacorb.reply(orb, request, server.lockYours());
        }

        @Override
        public String[] _all_interfaces(POA poa, byte[] oid) {
            return new String[] {"IDL:example/deadlock/Locker:1.0"};
        }
    }

    private static boolean await(CountDownLatch latch) throws InterruptedException {
        return latch.await(60, TimeUnit.SECONDS);
    }

    private static void lockInOrder(Node first, Node second, CountDownLatch both) {
        synchronized (first) {
            first.work();
            both.countDown();
            try {
                both.await();
            } catch (InterruptedException e) {
                return;
            }
            synchronized (second) {
                second.work();
            }
        }
    }

    /** The monitor of a site. */
    static final class Node {
        final String name;
        private long work;

        Node(String name) {
            this.name = name;
        }

        void work() {
            for (int i = 0; i < 200; i++) {
                work += Integer.toHexString(i).hashCode();
            }
        }
    }

    private static final class Server implements Locker {
        private final Node node;
        private final LockSite site;
        volatile Locker self;

        Server(Node node, LockSite site) {
            this.node = node;
            this.site = site;
        }

        @Override
        public String lockYours() {
            synchronized (node) {
                node.work();
                return node.name;
            }
        }

        @Override
        public String bounce(Locker back, int hops) throws RemoteException {
            synchronized (node) {
                node.work();
                if (hops <= 1) {
                    site.paused.countDown();
                    try {
                        await(site.release);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return node.name;
                }
                return node.name + " > " + back.bounce(self, hops - 1);
            }
        }
    }
}
