package example.monitors.rmi;

import example.monitors.BlockWatch;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;

/**
 * Remote-monitor leases under contention (issue 15 §1, §2), over JRMP. The server exports a {@link Counter}
 * that counts the clients inside their {@code synchronized (counter) { v = get(); ...; set(v + 1); }} block:
 * {@code get} enters, {@code set} leaves, so two clients inside at once is a broken exclusion, seen at the
 * server whatever the clients believe.
 */
public final class LeaseSites {
    private LeaseSites() {}

    /** The counter that watches its blocks. Not synchronized: the clients' remote monitor is the exclusion. */
    public static final class WatchedCounter implements Counter {
        private final BlockWatch watch = new BlockWatch();
        private volatile int value;

        @Override
        public int get() {
            watch.entered();
            return value;
        }

        @Override
        public void set(int v) {
            value = v;
            watch.left();
        }

        @Override
        public boolean signalled() {
            return false;
        }

        /** {@code value maxInside}, for the test. */
        public String state() {
            return value + " " + watch.maxInside();
        }
    }

    /** The counter's site. Steps: {@code state} ("value maxInside"), {@code table} (its monitor dump). */
    public static final class Server implements SiteApp {
        private final WatchedCounter counter = new WatchedCounter();

        @Override
        public void start(SiteContext ctx) throws Exception {
            Counter stub = (Counter) UnicastRemoteObject.exportObject(counter, 0);
            ctx.createRegistry().rebind("counter", stub);
            ctx.publish("rmi.host", ctx.host());
            ctx.step("state", args -> counter.state());
            ctx.step("table", args -> org.dthreads.monitor.MonitorDump.text());
        }
    }

    /**
     * A client. Steps: {@code slowIncrements n holdMillis} (n blocks, each holding the monitor across
     * {@code holdMillis}), {@code holdForever}, {@code timedLock} ("entered after N ms", or the exception).
     */
    public static final class Client implements SiteApp {
        @Override
        public void start(SiteContext ctx) throws Exception {
            ctx.step("slowIncrements", args -> {
                Counter counter = lookup(ctx);
                int n = Integer.parseInt(args.get(0));
                long holdMillis = Long.parseLong(args.get(1));
                for (int i = 0; i < n; i++) {
                    synchronized (counter) {
                        int v = counter.get();
                        BlockWatch.pause(holdMillis);
                        counter.set(v + 1);
                    }
                }
                return "ok";
            });
            ctx.step("holdForever", args -> {
                Counter counter = lookup(ctx);
                synchronized (counter) {
                    counter.get();
                    java.util.concurrent.locks.LockSupport.park(); // until the test kills this site
                    return "woke up";
                }
            });
            ctx.step("timedLock", args -> {
                Counter counter = lookup(ctx);
                long start = System.nanoTime();
                try {
                    synchronized (counter) {
                        int v = counter.get();
                        counter.set(v + 1);
                    }
                } catch (RuntimeException e) {
                    return e.getClass().getName() + ": " + e.getMessage();
                }
                return "entered after " + (System.nanoTime() - start) / 1_000_000 + " ms";
            });
        }

        private static Counter lookup(SiteContext ctx) throws Exception {
            String host = ctx.peerEndpoint("S", "rmi.host");
            int port = Integer.parseInt(ctx.peerEndpoint("S", "rmi.registry.port"));
            return (Counter) LocateRegistry.getRegistry(host, port).lookup("counter");
        }
    }
}
