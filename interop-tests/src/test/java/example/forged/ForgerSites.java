package example.forged;

import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.dthreads.ClassScope;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.rmi.internal.JrmpMonitorTransport;

/**
 * Forged identity over JRMP. Site S: thread H (class T) holds the vault's monitor while it is in an outgoing
 * call, the situation in which a callback of class T may act as the owner. Site F, an unrelated client, sends
 * forged classes (random ones, its own, guesses at S's counter) and forged lease tokens, through the identity
 * channel (twin calls) and through the remote-monitor protocol.
 */
public final class ForgerSites {
    private ForgerSites() {}

    /** Site S. Steps: {@code hold ms} (H holds the vault while calling out for ms), {@code events}. */
    public static final class S implements org.dthreads.junit.SiteApp, Vault {
        private final List<String> events = new CopyOnWriteArrayList<>();
        private volatile String holderClass = "";

        @Override
        public void start(org.dthreads.junit.SiteContext ctx) throws Exception {
            Vault self = (Vault) UnicastRemoteObject.exportObject(this, 0);
            ctx.createRegistry().rebind("vault", self);
            ctx.publish("rmi.host", ctx.host());
            ctx.publish("site", Integer.toString(DThreads.siteId()));
            ctx.step("hold", args -> {
                long millis = Long.parseLong(args.get(0));
                synchronized (this) {
                    holderClass = Long.toHexString(DThreads.currentClass());
                    events.add("H holds");
                    self.sleep(millis); // H is suspended in an outgoing call, holding the monitor
                    events.add("H releases");
                }
                return "held";
            });
            ctx.step("events", args -> String.join(" | ", events));
            ctx.step("holderClass", args -> holderClass);
        }

        @Override
        public synchronized void touch(String who) {
            events.add("touch by " + who);
        }

        @Override
        public void sleep(long millis) {
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            for (long left; (left = until - System.nanoTime()) > 0; ) {
                java.util.concurrent.locks.LockSupport.parkNanos(left);
            }
        }
    }

    /** Site F, the forger. Steps: {@code touchAs label class}, {@code opAs op class token waitMillis arg}. */
    public static final class F implements org.dthreads.junit.SiteApp {
        private final ExecutorService pool = Executors.newCachedThreadPool();

        @Override
        public void start(org.dthreads.junit.SiteContext ctx) throws Exception {
            ctx.step("touchAs", args -> {
                Vault vault = vault(ctx);
                long forged = Long.parseUnsignedLong(args.get(1), 16);
                pool.submit(() -> {
                    try (ClassScope ignored = DThreads.bind(forged)) {
                        vault.touch(args.get(0) + " " + ThreadClass.format(forged));
                    }
                    return null;
                });
                return "sent";
            });
            ctx.step("opAs", args -> {
                Vault vault = vault(ctx);
                int op = Integer.parseInt(args.get(0));
                long forged = Long.parseUnsignedLong(args.get(1), 16);
                long token = Long.parseUnsignedLong(args.get(2), 16);
                Future<String> reply = pool.submit(() -> {
                    try {
                        return "returned " + JrmpMonitorTransport.INSTANCE_FOR_TESTS.call(vault, op, forged, token,
                                Long.parseLong(args.get(4)), 0);
                    } catch (Exception e) {
                        return e.getClass().getSimpleName() + ": " + e.getMessage();
                    }
                });
                try {
                    return reply.get(Long.parseLong(args.get(3)), TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    return "blocked";
                }
            });
        }

        private static Vault vault(org.dthreads.junit.SiteContext ctx) throws Exception {
            return (Vault) LocateRegistry.getRegistry(ctx.peerEndpoint("S", "rmi.host"),
                    Integer.parseInt(ctx.peerEndpoint("S", "rmi.registry.port"))).lookup("vault");
        }
    }
}
