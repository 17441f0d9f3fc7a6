package example.monitors.corba;

import example.monitors.BlockWatch;
import example.zigzag.corba.Jacorb;
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
    }

    @Override
    public void start(SiteContext ctx) throws Exception {
        ORB orb = Jacorb.orb(ctx, ctx.args().contains("dthreads"));
        if (ctx.args().contains("server")) {
            WatchedCounter counter = new WatchedCounter();
            ctx.publish("ior", orb.object_to_string(Jacorb.rootPoa(orb).servant_to_reference(counter)));
            ctx.step("state", args -> counter.value + " " + counter.watch.maxInside());
        } else {
            ctx.step("slowIncrements", args -> {
                CounterStub counter = CounterStub.narrow(orb.string_to_object(ctx.peerEndpoint(args.get(0), "ior")));
                int n = Integer.parseInt(args.get(1));
                long holdMillis = Long.parseLong(args.get(2));
                for (int i = 0; i < n; i++) {
                    synchronized (counter) {
                        int v = counter.get();
                        BlockWatch.pause(holdMillis);
                        counter.set(v + 1);
                    }
                }
                return "ok";
            });
        }
    }
}
