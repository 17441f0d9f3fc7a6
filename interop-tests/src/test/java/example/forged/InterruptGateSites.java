package example.forged;

import example.interrupts.Waiter;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.dthreads.DThreads;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;

/**
 * The causality gate of remote interrupts (issue 15 §4). Site S runs a home thread of its own class that
 * either waits on a local monitor ({@code waitLocally}) or calls out to site C, where C's server thread, bound
 * to that class, waits ({@code callOut}, C is {@link example.interrupts.InterruptSites.C}). A forger F
 * ({@link ForgerSites.F}) that knows the class sends INTERRUPT for it to S's vault.
 */
public final class InterruptGateSites {
    private InterruptGateSites() {}

    /**
     * Site S. Steps: {@code waitLocally ms} and {@code callOut} start the home thread and return its class
     * (hex); {@code outcome ms} waits up to ms for what the thread saw; {@code interrupt ms} interrupts it
     * (rewritten {@code t.interrupt()}: routed like any interrupt of a suspended thread) and returns what it saw.
     */
    public static final class S implements SiteApp, Vault {
        private final Object lock = new Object();
        private final AtomicReference<CompletableFuture<String>> outcome = new AtomicReference<>();
        private volatile Thread home;

        @Override
        public void start(SiteContext ctx) throws Exception {
            Vault self = (Vault) UnicastRemoteObject.exportObject(this, 0);
            ctx.createRegistry().rebind("vault", self);
            ctx.publish("rmi.host", ctx.host());
            ctx.step("waitLocally", args -> startHome(() -> {
                synchronized (lock) {
                    try {
                        lock.wait(Long.parseLong(args.get(0)));
                        return "W's wait timed out";
                    } catch (InterruptedException e) {
                        return "W's wait interrupted";
                    }
                }
            }));
            ctx.step("callOut", args -> {
                Waiter c = (Waiter) LocateRegistry.getRegistry(ctx.peerEndpoint("C", "rmi.host"),
                        Integer.parseInt(ctx.peerEndpoint("C", "rmi.registry.port"))).lookup("waiter");
                return startHome(() -> {
                    try {
                        return c.waitHere() + "; status " + Thread.currentThread().isInterrupted();
                    } catch (java.rmi.RemoteException e) {
                        return "call failed: " + e;
                    }
                });
            });
            ctx.step("outcome", args -> outcome(Long.parseLong(args.get(0))));
            ctx.step("interrupt", args -> {
                home.interrupt();
                return outcome(Long.parseLong(args.get(0)));
            });
        }

        private String startHome(java.util.function.Supplier<String> body) throws Exception {
            CompletableFuture<String> result = new CompletableFuture<>();
            CompletableFuture<Long> cls = new CompletableFuture<>();
            outcome.set(result);
            home = new Thread(() -> {
                cls.complete(DThreads.currentClass());
                result.complete(body.get());
            }, "home");
            home.start();
            return Long.toHexString(cls.get(10, TimeUnit.SECONDS));
        }

        private String outcome(long millis) throws Exception {
            try {
                return outcome.get().get(millis, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                return "pending";
            }
        }

        @Override
        public synchronized void touch(String who) {}

        @Override
        public void sleep(long millis) {}
    }
}
