package example.interrupts;

import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;

/**
 * The interrupt status of a thread blocked in a call chain (issue 20 §2). A's thread T calls B, which calls A
 * back; while the callback runs on A, A's code interrupts T and reads {@code t.isInterrupted()}; then the
 * callback reads {@code Thread.currentThread().isInterrupted()} and {@code Thread.interrupted()} twice. In the
 * single-threaded program the callback is T itself: the status is set, seen, and cleared once.
 */
public final class InterruptStatusSites {
    private InterruptStatusSites() {}

    /** Site B: calls the probe it is given. */
    public static final class B implements SiteApp, Bouncer {
        @Override
        public void start(SiteContext ctx) throws Exception {
            ctx.createRegistry().rebind("bouncer", UnicastRemoteObject.exportObject(this, 0));
            ctx.publish("rmi.host", ctx.host());
        }

        @Override
        public String bounce(Probe back) throws java.rmi.RemoteException {
            return "B: " + back.probe();
        }
    }

    /**
     * Site A. Steps: {@code startChain} starts T (T -> B -> A's probe, which blocks until released);
     * {@code interrupt} waits for the probe, interrupts T, reads {@code t.isInterrupted()}, releases the probe
     * and returns both readings and what T saw when its call returned.
     */
    public static final class A implements SiteApp, Probe {
        private volatile Thread t;
        private final AtomicReference<String> outcome = new AtomicReference<>();
        private final CountDownLatch reached = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void start(SiteContext ctx) throws Exception {
            Probe self = (Probe) UnicastRemoteObject.exportObject(this, 0);
            ctx.step("startChain", args -> {
                Bouncer b = (Bouncer) LocateRegistry.getRegistry(ctx.peerEndpoint("B", "rmi.host"),
                        Integer.parseInt(ctx.peerEndpoint("B", "rmi.registry.port"))).lookup("bouncer");
                t = new Thread(() -> {
                    try {
                        String r = b.bounce(self);
                        outcome.set(r + "; T's status after its call " + Thread.interrupted());
                    } catch (java.rmi.RemoteException e) {
                        outcome.set("T failed: " + e);
                    }
                }, "T");
                t.start();
                return "started";
            });
            ctx.step("interrupt", args -> {
                if (!reached.await(20, TimeUnit.SECONDS)) {
                    return "the callback never came";
                }
                t.interrupt();
                String seen = "t.isInterrupted() " + t.isInterrupted();
                release.countDown();
                t.join(20_000);
                return seen + "; " + outcome.get();
            });
        }

        @Override
        public String probe() {
            reached.countDown();
            try {
                if (!release.await(30, TimeUnit.SECONDS)) {
                    return "callback never released";
                }
            } catch (InterruptedException e) {
                return "callback's latch interrupted";
            }
            boolean is = Thread.currentThread().isInterrupted();
            boolean first = Thread.interrupted();
            boolean again = Thread.interrupted();
            return "callback: isInterrupted " + is + ", interrupted " + first + ", again " + again;
        }
    }
}
