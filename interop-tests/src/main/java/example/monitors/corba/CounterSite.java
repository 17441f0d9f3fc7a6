package example.monitors.corba;

import example.zigzag.corba.Jacorb;
import java.util.List;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ORB;

/**
 * Remote monitors over CORBA (JacORB), as plain application code: {@code synchronized (counter)},
 * {@code counter.wait()} on a stub. With the dthreads agent and initializer at both ends they act on the
 * servant at its site; without them {@code synchronized (counter)} locks only the local stub.
 *
 * <p>Arguments: {@code server} (serves a {@link Counter} servant, publishes {@code ior}) or {@code client};
 * {@code dthreads} registers the dthreads ORB initializer.
 */
public final class CounterSite implements SiteApp {

    /** The servant. Its monitor is what clients' {@code synchronized (stub)} means. */
    public static final class Counter extends CounterPOA {
        private int value;

        @Override
        public int get() {
            return value;
        }

        @Override
        public void set(int v) {
            value = v;
        }
    }

    @Override
    public void start(SiteContext ctx) throws Exception {
        ORB orb = Jacorb.orb(ctx, ctx.args().contains("dthreads"));
        if (ctx.args().contains("server")) {
            Counter counter = new Counter();
            ctx.publish("ior", orb.object_to_string(Jacorb.rootPoa(orb).servant_to_reference(counter)));
            ctx.step("value", args -> Integer.toString(counter.get()));
            // the servant's own site notifies: a local thread of the server site
            ctx.step("bump", args -> {
                synchronized (counter) {
                    counter.set(counter.get() + 1);
                    counter.notifyAll();
                }
                return "bumped";
            });
        } else {
            ctx.step("increment", args -> increment(ctx, orb, args));
            ctx.step("waitForBump", args -> waitForBump(ctx, orb, args.get(0)));
            ctx.step("lockOnce", args -> lockOnce(orb, args.get(0)));
            ctx.step("startRemoteWait", args -> startRemoteWait(ctx, orb, args.get(0)));
            ctx.step("interruptWaiter", args -> interruptWaiter());
            ctx.step("holdFor", args -> holdFor(ctx, orb, args.get(0), Long.parseLong(args.get(1))));
            ctx.step("forge", args -> forge(ctx, orb, args));
        }
    }

    private static CounterStub counter(ORB orb, String serverIor) {
        return CounterStub.narrow(orb.string_to_object(serverIor));
    }

    /**
     * {@code increment(serverSite, times, otherClient)}: the read-modify-write under {@code synchronized
     * (counter)}, {@code times} times, started together with {@code otherClient} (a gate through the
     * endpoints, so that the two loops overlap).
     */
    static String increment(SiteContext ctx, ORB orb, List<String> args) {
        CounterStub counter = counter(orb, ctx.peerEndpoint(args.get(0), "ior"));
        int times = Integer.parseInt(args.get(1));
        String round = args.size() > 3 ? args.get(3) : "0";
        counter.get(); // connect before the gate
        ctx.publish("ready." + round, "yes");
        if (args.size() > 2 && !args.get(2).isEmpty()) {
            ctx.peerEndpoint(args.get(2), "ready." + round);
        }
        for (int i = 0; i < times; i++) {
            synchronized (counter) {
                int v = counter.get();
                counter.set(v + 1);
            }
        }
        return "done";
    }

    /** Waits on the servant through the stub until the server site bumps the counter. */
    static String waitForBump(SiteContext ctx, ORB orb, String serverSite) throws InterruptedException {
        CounterStub counter = counter(orb, ctx.peerEndpoint(serverSite, "ior"));
        synchronized (counter) {
            int start = counter.get();
            ctx.publish("waiting", Integer.toString(start)); // the server's bump cannot run before our wait
            int waits = 0;
            while (counter.get() == start) {
                counter.wait();
                waits++;
            }
            return "woken after " + waits + " wait(s), value " + counter.get() + ", holdsLock " + Thread.holdsLock(counter);
        }
    }

    private static volatile Thread waiter;
    private static final java.util.concurrent.atomic.AtomicReference<String> WAIT_OUTCOME =
            new java.util.concurrent.atomic.AtomicReference<>();

    /** Thread T waits on the servant through the stub, with nobody to notify it: only an interrupt ends it. */
    static String startRemoteWait(SiteContext ctx, ORB orb, String serverSite) {
        CounterStub counter = counter(orb, ctx.peerEndpoint(serverSite, "ior"));
        WAIT_OUTCOME.set(null);
        waiter = new Thread(() -> {
            synchronized (counter) {
                try {
                    counter.wait(60_000);
                    WAIT_OUTCOME.set("T's remote wait timed out");
                } catch (InterruptedException e) {
                    WAIT_OUTCOME.set("T's remote wait interrupted, holds " + Thread.holdsLock(counter) + ", status "
                            + Thread.currentThread().isInterrupted());
                }
            }
        }, "T");
        waiter.start();
        return "started";
    }

    /** {@code t.interrupt()} in rewritten code, then what T saw. */
    static String interruptWaiter() throws InterruptedException {
        waiter.interrupt();
        waiter.join(10_000);
        String outcome = WAIT_OUTCOME.get();
        return outcome == null ? "T still blocked" : outcome;
    }

    /** Holds the servant's monitor through the stub for {@code millis}. */
    static String holdFor(SiteContext ctx, ORB orb, String serverSite, long millis) {
        CounterStub counter = counter(orb, ctx.peerEndpoint(serverSite, "ior"));
        synchronized (counter) {
            long until = System.nanoTime() + millis * 1_000_000L;
            for (long left; (left = until - System.nanoTime()) > 0; ) {
                java.util.concurrent.locks.LockSupport.parkNanos(left);
            }
            return "held";
        }
    }

    /**
     * {@code forge server op classHex tokenHex waitMillis arg}: one crafted remote monitor request, as an
     * unrelated client could send it, with a made-up class and token; its outcome, or "blocked".
     */
    static String forge(SiteContext ctx, ORB orb, List<String> args) throws Exception {
        CounterStub counter = counter(orb, ctx.peerEndpoint(args.get(0), "ior"));
        int op = Integer.parseInt(args.get(1));
        long forged = Long.parseUnsignedLong(args.get(2), 16);
        long token = Long.parseUnsignedLong(args.get(3), 16);
        long arg = Long.parseLong(args.get(5));
        java.util.concurrent.FutureTask<String> request = new java.util.concurrent.FutureTask<>(() -> {
            try {
                return "returned " + org.dthreads.iiop.internal.IiopMonitorTransport.instance().call(counter, op, forged,
                        token, arg, 0);
            } catch (Exception e) {
                return e.getClass().getSimpleName() + ": " + e.getMessage();
            }
        });
        Thread t = new Thread(request, "forger");
        t.setDaemon(true);
        t.start();
        try {
            return request.get(Long.parseLong(args.get(4)), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            return "blocked";
        }
    }

    /** One {@code synchronized (counter)}: what fails against a site without dthreads. */
    static String lockOnce(ORB orb, String serverIor) {
        CounterStub counter = counter(orb, serverIor);
        try {
            synchronized (counter) {
                return "locked, value " + counter.get();
            }
        } catch (RuntimeException e) {
            return e.getClass().getName() + ": " + e.getMessage();
        }
    }
}
