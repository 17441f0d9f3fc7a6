package example.waitnotify;

import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;

/**
 * Wait/notify across a call chain. On site A, thread U waits on monitor M. Thread T takes M and calls
 * B; B calls back into A, where the callback thread T' (acting for T) takes M again and notifies U.
 * U is woken but must not run until T, back from B, releases its own hold on M: the JVM's rule for
 * one thread, kept for one logical thread spread over two physical ones.
 */
public final class WaitNotifySites {
    private WaitNotifySites() {}

    /** Site A. Step {@code scenario} returns the events in order, joined by {@code " | "}. */
    public static final class A implements SiteApp, Peer {
        private final Object monitor = new Object();
        private final List<String> events = new CopyOnWriteArrayList<>();
        private boolean notified;

        @Override
        public void start(SiteContext ctx) throws Exception {
            Peer self = (Peer) UnicastRemoteObject.exportObject(this, 0);
            ctx.createRegistry().rebind("peer", self);
            ctx.publish("rmi.host", ctx.host());
            ctx.step("scenario", args -> {
                String host = ctx.peerEndpoint("B", "rmi.host");
                int port = Integer.parseInt(ctx.peerEndpoint("B", "rmi.registry.port"));
                Relay b = (Relay) LocateRegistry.getRegistry(host, port).lookup("relay");
                CountDownLatch uHolds = new CountDownLatch(1);
                Thread u = new Thread(() -> {
                    synchronized (monitor) {
                        events.add("U waits");
                        uHolds.countDown();
                        while (!notified) {
                            try {
                                monitor.wait();
                            } catch (InterruptedException e) {
                                events.add("U interrupted");
                                return;
                            }
                        }
                        events.add("U resumed");
                    }
                }, "U");
                u.start();
                uHolds.await(10, TimeUnit.SECONDS);
                synchronized (monitor) { // T: U is waiting now (it released the monitor)
                    events.add("T holds M");
                    events.add("B says " + b.relay(self));
                    events.add("T back from B");
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300)); // give a wrongly woken U time to run
                    events.add("T releases M");
                }
                u.join(10_000);
                return String.join(" | ", events);
            });
        }

        @Override
        public String callBack(String from) {
            synchronized (monitor) { // T': the class of T, which holds the monitor and waits for B
                notified = true;
                monitor.notifyAll();
                events.add("T' notified U");
                return "callback from " + from;
            }
        }
    }

    /** Site B. */
    public static final class B implements SiteApp, Relay {
        private long work;

        @Override
        public void start(SiteContext ctx) throws Exception {
            Relay self = (Relay) UnicastRemoteObject.exportObject(this, 0);
            ctx.createRegistry().rebind("relay", self);
            ctx.publish("rmi.host", ctx.host());
        }

        @Override
        public synchronized String relay(Peer peer) throws java.rmi.RemoteException {
            for (int i = 0; i < 1000; i++) {
                work += Integer.toHexString(i).hashCode();
            }
            return peer.callBack("B") + (work != 0 ? "" : "!");
        }
    }
}
