package example.callbacks;

import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;

/**
 * A site for the callbacks-on-the-original-thread tests: exports a {@link Relay}; step {@code route A,B,A mode}
 * forwards along the route from the step's thread. Each visit reports, in the trail,
 * {@code SITE[thread,tl]}: {@code thread} is {@code first} for the route's first visit of this site, then
 * {@code same} if {@code Thread.currentThread()} is that first visitor's {@code Thread} object, else
 * {@code other}; {@code tl} is {@code seen} if a {@code ThreadLocal} set by an earlier visit of the route on
 * this site is visible, else {@code fresh} (and it is set now).
 */
public final class RelaySite implements SiteApp {

    @Override
    public void start(SiteContext ctx) throws Exception {
        Node node = new Node(ctx.siteName());
        Relay stub = (Relay) UnicastRemoteObject.exportObject(node, 0);
        ctx.createRegistry().rebind("relay", stub);
        ctx.publish("rmi.host", ctx.host());
        ctx.step("route", args -> {
            List<Relay> route = new ArrayList<>();
            for (String site : args.get(0).split(",")) {
                if (site.equals(ctx.siteName())) {
                    route.add(stub);
                } else {
                    String host = ctx.peerEndpoint(site, "rmi.host");
                    int port = Integer.parseInt(ctx.peerEndpoint(site, "rmi.registry.port"));
                    route.add((Relay) LocateRegistry.getRegistry(host, port).lookup("relay"));
                }
            }
            try {
                return node.hop(route, 0, UUID.randomUUID().toString(), args.get(1));
            } catch (RemoteException e) {
                return "failed: " + e.getClass().getName() + ": " + e.getMessage();
            }
        });
        ctx.step("journal", args -> String.join(" ; ", new ArrayList<>(node.journal)));
    }

    static final class Node implements Relay {
        private static final ThreadLocal<String> ROUTE = new ThreadLocal<>();
        private final String name;
        private final Vector<String> journal = new Vector<>();
        private final Vector<String> ledger = new Vector<>(); // a second native-mode monitor, for mode abba
        private final ConcurrentHashMap<String, Thread> firstVisitor = new ConcurrentHashMap<>();
        private boolean opened; // guarded by this (emulated)

        Node(String name) {
            this.name = name;
        }

        @Override
        public String hop(List<Relay> route, int index, String token, String mode) throws RemoteException {
            Thread me = Thread.currentThread();
            Thread first = firstVisitor.putIfAbsent(token, me);
            String thread = first == null ? "first" : first == me ? "same" : "other";
            String tl = token.equals(ROUTE.get()) ? "seen" : "fresh";
            ROUTE.set(token);
            String here = name + "[" + thread + "," + tl + "]";
            switch (mode) {
                case "abba":
                    return abba(route, index, token, mode, here, first != null);
                case "late":
                    if (index > 0 && first == null) {
                        slowService(); // the caller's response timeout passes meanwhile
                    }
                    // fall through: the callback then locks the Vector like mode "vector"
                case "vector":
                    synchronized (journal) { // a JDK collection that locks itself: native mode
                        journal.add(here);
                        return forward(route, index, token, mode, here);
                    }
                case "out":
                    synchronized (System.out) { // native mode too
                        System.out.println("relay visit " + here);
                        return forward(route, index, token, mode, here);
                    }
                case "wait":
                    synchronized (this) { // emulated
                        if (first != null) {
                            awaitLocalNotify();
                        }
                        return forward(route, index, token, mode, here);
                    }
                default:
                    return forward(route, index, token, mode, here);
            }
        }

        /**
         * Mode {@code abba}: the route's first visit holds {@code journal} across its call after a local thread
         * took {@code ledger} and went for {@code journal}; the callback visit then takes {@code ledger}. Both
         * monitors are native, so the deadlock is local to this JVM once the callback runs on the first
         * visitor's thread, and the JVM can see it.
         */
        private String abba(List<Relay> route, int index, String token, String mode, String here, boolean callback)
                throws RemoteException {
            if (index == 0) {
                java.util.concurrent.CountDownLatch ledgerHeld = new java.util.concurrent.CountDownLatch(1);
                java.util.concurrent.CountDownLatch journalHeld = new java.util.concurrent.CountDownLatch(1);
                Thread other = new Thread(() -> {
                    synchronized (ledger) {
                        ledgerHeld.countDown();
                        awaitLatch(journalHeld);
                        synchronized (journal) {
                            ledger.add("other");
                        }
                    }
                }, "relay-abba-other");
                other.setDaemon(true);
                other.start();
                awaitLatch(ledgerHeld);
                synchronized (journal) {
                    journalHeld.countDown();
                    return forward(route, index, token, mode, here);
                }
            }
            if (callback) {
                synchronized (ledger) {
                    ledger.add(here);
                }
            }
            return forward(route, index, token, mode, here);
        }

        private static void awaitLatch(java.util.concurrent.CountDownLatch latch) {
            try {
                latch.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** A service slower than the caller's {@code sun.rmi.transport.tcp.responseTimeout}: 2 s of this thread. */
        private static void slowService() {
            try {
                java.util.concurrent.TimeUnit.SECONDS.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Waits on this relay's emulated monitor until a fresh local thread notifies it. Caller holds this. */
        private void awaitLocalNotify() {
            opened = false;
            Thread notifier = new Thread(() -> {
                synchronized (this) {
                    opened = true;
                    notifyAll();
                }
            }, "relay-notifier");
            notifier.start();
            try {
                while (!opened) {
                    wait();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted in a callback's wait", e);
            }
        }

        private static String forward(List<Relay> route, int index, String token, String mode, String here)
                throws RemoteException {
            if (index == route.size() - 1) {
                return here;
            }
            return here + " > " + route.get(index + 1).hop(route, index + 1, token, mode);
        }
    }
}
