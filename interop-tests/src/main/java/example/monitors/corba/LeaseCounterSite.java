package example.monitors.corba;

import example.zigzag.corba.Jacorb;
import java.util.concurrent.atomic.AtomicInteger;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ORB;

/**
 * Remote-monitor leases under contention (issue 15 §1), over IIOP (JacORB): the servant counts the clients
 * inside their {@code synchronized (counter) { v = get(); ...; set(v + 1); }} block ({@code get} enters,
 * {@code set} leaves), so a broken exclusion is seen at the server.
 *
 * <p>Arguments: {@code server} or {@code client}, and {@code dthreads}. Server steps: {@code state}
 * ("value maxInside"). Client step: {@code slowIncrements server n holdMillis}.
 */
public final class LeaseCounterSite implements SiteApp {

    /** The watched servant. Not synchronized: the clients' remote monitor is the exclusion. */
    public static final class WatchedCounter extends CounterPOA {
        private final AtomicInteger inside = new AtomicInteger();
        private final AtomicInteger maxInside = new AtomicInteger();
        private volatile int value;

        @Override
        public int get() {
            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
            return value;
        }

        @Override
        public void set(int v) {
            value = v;
            inside.decrementAndGet();
        }
    }

    @Override
    public void start(SiteContext ctx) throws Exception {
        ORB orb = Jacorb.orb(ctx, ctx.args().contains("dthreads"));
        if (ctx.args().contains("server")) {
            WatchedCounter counter = new WatchedCounter();
            ctx.publish("ior", orb.object_to_string(Jacorb.rootPoa(orb).servant_to_reference(counter)));
            ctx.step("state", args -> counter.value + " " + counter.maxInside.get());
        } else {
            ctx.step("slowIncrements", args -> {
                CounterStub counter = CounterStub.narrow(orb.string_to_object(ctx.peerEndpoint(args.get(0), "ior")));
                int n = Integer.parseInt(args.get(1));
                long holdMillis = Long.parseLong(args.get(2));
                for (int i = 0; i < n; i++) {
                    synchronized (counter) {
                        int v = counter.get();
                        long until = System.nanoTime() + holdMillis * 1_000_000L;
                        for (long left; (left = until - System.nanoTime()) > 0; ) {
                            java.util.concurrent.locks.LockSupport.parkNanos(left);
                        }
                        counter.set(v + 1);
                    }
                }
                return "ok";
            });
        }
    }
}
