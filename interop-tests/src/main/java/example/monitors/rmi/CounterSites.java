package example.monitors.rmi;

import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;

/**
 * Monitor operations on a JRMP stub. The server exports a {@link Counter}; clients do
 * {@code synchronized (counter) { v = counter.get(); counter.set(v + 1); }}. With dthreads the block locks
 * the counter object at the server (a lease held across the two calls), so it also excludes the server's
 * own {@code synchronized} methods; without dthreads it locks the client's local stub and updates are lost.
 */
public final class CounterSites {
    private CounterSites() {}

    /** The counter's site. Steps: {@code bumpLocally n}, {@code value}, {@code signal}, {@code table}. */
    public static final class Server implements SiteApp {
        private final CounterImpl counter = new CounterImpl();

        @Override
        public void start(SiteContext ctx) throws Exception {
            Counter stub = Boolean.getBoolean("counter.ssl")
                    ? (Counter) UnicastRemoteObject.exportObject(counter, 0, new javax.rmi.ssl.SslRMIClientSocketFactory(),
                            new javax.rmi.ssl.SslRMIServerSocketFactory())
                    : (Counter) UnicastRemoteObject.exportObject(counter, 0);
            ctx.createRegistry().rebind("counter", stub);
            ctx.publish("rmi.host", ctx.host());
            ctx.step("bumpLocally", args -> {
                int n = Integer.parseInt(args.get(0));
                for (int i = 0; i < n; i++) {
                    counter.bump();
                }
                return "ok";
            });
            ctx.step("value", args -> Integer.toString(counter.get()));
            ctx.step("signal", args -> {
                counter.signal();
                return "ok";
            });
            ctx.step("table", args -> org.dthreads.monitor.MonitorDump.text());
        }
    }

    /** The remote object. {@code get}/{@code set} are not synchronized: the clients' block is the exclusion. */
    public static final class CounterImpl implements Counter {
        private int value;
        private boolean signalled;

        @Override
        public int get() {
            return value;
        }

        @Override
        public void set(int v) {
            value = v;
        }

        /** The site's own increment, excluded by a client's remote hold. */
        public synchronized void bump() {
            int v = value;
            Thread.yield();
            value = v + 1;
        }

        @Override
        public synchronized boolean signalled() {
            return signalled;
        }

        /** Wakes clients waiting in {@code counter.wait()} through their stubs. */
        public synchronized void signal() {
            signalled = true;
            notifyAll();
        }
    }

    /** A client site. Steps: {@code increment n}, {@code awaitSignal}, {@code tryLock}. */
    public static final class Client implements SiteApp {
        @Override
        public void start(SiteContext ctx) throws Exception {
            ctx.step("increment", args -> {
                Counter counter = lookup(ctx);
                int n = Integer.parseInt(args.get(0));
                for (int i = 0; i < n; i++) {
                    synchronized (counter) {
                        int v = counter.get();
                        counter.set(v + 1);
                    }
                }
                return "ok";
            });
            ctx.step("awaitSignal", args -> {
                Counter counter = lookup(ctx);
                synchronized (counter) {
                    boolean heldBefore = Thread.holdsLock(counter);
                    while (!counter.signalled()) {
                        counter.wait(30_000);
                    }
                    return "woken; held before " + heldBefore + ", after " + Thread.holdsLock(counter);
                }
            });
            ctx.step("holdForever", args -> {
                Counter counter = lookup(ctx);
                synchronized (counter) {
                    java.util.concurrent.locks.LockSupport.park(); // until the test kills this site
                    return "woke up";
                }
            });
            ctx.step("holdThenNotify", args -> {
                Counter counter = lookup(ctx);
                long holdMillis = Long.parseLong(args.get(0));
                synchronized (counter) {
                    long until = System.nanoTime() + holdMillis * 1_000_000L;
                    for (long left; (left = until - System.nanoTime()) > 0; ) {
                        java.util.concurrent.locks.LockSupport.parkNanos(left);
                    }
                    try {
                        counter.notifyAll();
                        return "still the owner";
                    } catch (IllegalMonitorStateException e) {
                        return "IllegalMonitorStateException: " + e.getMessage();
                    }
                }
            });
            ctx.step("tryLock", args -> {
                Counter counter = lookup(ctx);
                long start = System.nanoTime();
                try {
                    synchronized (counter) {
                        return "entered";
                    }
                } catch (RuntimeException e) {
                    return e.getClass().getName() + " after " + (System.nanoTime() - start) / 1_000_000 + " ms: "
                            + e.getMessage();
                }
            });
        }

        private static Counter lookup(SiteContext ctx) throws Exception {
            String host = ctx.peerEndpoint("S", "rmi.host");
            int port = Integer.parseInt(ctx.peerEndpoint("S", "rmi.registry.port"));
            return (Counter) LocateRegistry.getRegistry(host, port).lookup("counter");
        }
    }

}
