package example.monitors.corba;

import example.rmiiiop.GlassFishSiteOrb;
import javax.rmi.CORBA.Stub;
import javax.rmi.CORBA.Tie;
import javax.rmi.CORBA.Util;
import javax.rmi.PortableRemoteObject;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ORB;

/**
 * Remote monitors over RMI-IIOP on the GlassFish ORB: {@code synchronized (counter)} on a dynamic stub.
 * Arguments as {@link CounterSite}. No dthreads property is needed: the interface has its JRMP twins.
 */
public final class RmiIiopCounterSite implements SiteApp {

    /** The exported object; its monitor is what {@code synchronized (stub)} means (the tie's target). */
    public static final class Counter implements RmiCounter {
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
        ORB orb = GlassFishSiteOrb.startRmiIiop(ctx, ctx.args().contains("dthreads"));
        if (ctx.args().contains("server")) {
            Counter counter = new Counter();
            PortableRemoteObject.exportObject(counter);
            Tie tie = Util.getTie(counter);
            tie.orb(orb);
            ctx.publish("ior", orb.object_to_string(tie.thisObject()));
            ctx.step("value", args -> Integer.toString(counter.get()));
        } else {
            ctx.step("increment", args -> {
                RmiCounter counter = (RmiCounter) PortableRemoteObject.narrow(
                        orb.string_to_object(ctx.peerEndpoint(args.get(0), "ior")), RmiCounter.class);
                if (counter instanceof Stub stub) {
                    try {
                        stub.connect(orb);
                    } catch (java.rmi.RemoteException alreadyConnected) {
                        // fine
                    }
                }
                int times = Integer.parseInt(args.get(1));
                counter.get();
                ctx.publish("ready", "yes");
                if (args.size() > 2 && !args.get(2).isEmpty()) {
                    ctx.peerEndpoint(args.get(2), "ready");
                }
                for (int i = 0; i < times; i++) {
                    synchronized (counter) {
                        int v = counter.get();
                        counter.set(v + 1);
                    }
                }
                return "done, stub " + counter.getClass().getName();
            });
        }
    }
}
