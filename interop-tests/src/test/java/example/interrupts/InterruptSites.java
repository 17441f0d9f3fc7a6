package example.interrupts;

import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.concurrent.atomic.AtomicReference;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;

/**
 * Cross-site interrupts. A thread of site A is interrupted (by {@code t.interrupt()} in A's code) while its
 * class waits elsewhere: in a remote {@code stub.wait()} on C's object, or two hops down a call chain
 * A -> B -> C where C's code waits on a local monitor.
 */
public final class InterruptSites {
    private InterruptSites() {}

    /** Site C: exports the {@link Waiter}. */
    public static final class C implements SiteApp, Waiter {
        private final Object lock = new Object();

        @Override
        public void start(SiteContext ctx) throws Exception {
            ctx.createRegistry().rebind("waiter", UnicastRemoteObject.exportObject(this, 0));
            ctx.publish("rmi.host", ctx.host());
        }

        @Override
        public String waitHere() {
            synchronized (lock) {
                try {
                    lock.wait(30_000);
                    return "C's wait timed out";
                } catch (InterruptedException e) {
                    return "C's wait interrupted, holds lock " + Thread.holdsLock(lock) + ", status "
                            + Thread.currentThread().isInterrupted();
                }
            }
        }
    }

    /** Site B: relays to C. */
    public static final class B implements SiteApp, Relay {
        private volatile Waiter c;

        @Override
        public void start(SiteContext ctx) throws Exception {
            ctx.createRegistry().rebind("relay", UnicastRemoteObject.exportObject(this, 0));
            ctx.publish("rmi.host", ctx.host());
            ctx.step("connect", args -> {
                c = (Waiter) LocateRegistry.getRegistry(ctx.peerEndpoint("C", "rmi.host"),
                        Integer.parseInt(ctx.peerEndpoint("C", "rmi.registry.port"))).lookup("waiter");
                return "ok";
            });
        }

        @Override
        public String relay() throws java.rmi.RemoteException {
            return "B relayed: " + c.waitHere();
        }
    }

    /**
     * Site A. Steps: {@code startChain} / {@code startRemoteWait} start thread T; {@code interrupt} interrupts
     * it and returns what T saw.
     */
    public static final class A implements SiteApp {
        private volatile Thread t;
        private final AtomicReference<String> outcome = new AtomicReference<>();

        @Override
        public void start(SiteContext ctx) throws Exception {
            ctx.step("startChain", args -> {
                Relay b = (Relay) LocateRegistry.getRegistry(ctx.peerEndpoint("B", "rmi.host"),
                        Integer.parseInt(ctx.peerEndpoint("B", "rmi.registry.port"))).lookup("relay");
                start(() -> {
                    try {
                        String r = b.relay();
                        return r + "; T's status " + Thread.currentThread().isInterrupted();
                    } catch (java.rmi.RemoteException e) {
                        return "T failed: " + e;
                    }
                });
                return "started";
            });
            ctx.step("startRemoteWait", args -> {
                Waiter c = (Waiter) LocateRegistry.getRegistry(ctx.peerEndpoint("C", "rmi.host"),
                        Integer.parseInt(ctx.peerEndpoint("C", "rmi.registry.port"))).lookup("waiter");
                start(() -> {
                    synchronized (c) {
                        try {
                            c.wait(30_000);
                            return "T's remote wait timed out";
                        } catch (InterruptedException e) {
                            return "T's remote wait interrupted, holds " + Thread.holdsLock(c) + ", status "
                                    + Thread.currentThread().isInterrupted();
                        }
                    }
                });
                return "started";
            });
            ctx.step("interrupt", args -> {
                t.interrupt();
                t.join(Long.parseLong(args.get(0)));
                String r = outcome.get();
                return r == null ? "T still blocked" : r;
            });
        }

        private void start(java.util.function.Supplier<String> body) {
            outcome.set(null);
            t = new Thread(() -> outcome.set(body.get()), "T");
            t.start();
        }
    }
}
