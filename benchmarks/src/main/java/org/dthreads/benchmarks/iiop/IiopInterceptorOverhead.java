package org.dthreads.benchmarks.iiop;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Random;
import javax.rmi.CORBA.Tie;
import javax.rmi.CORBA.Util;
import javax.rmi.PortableRemoteObject;
import org.dthreads.iiop.DThreadsOrbInitializer;
import org.omg.CORBA.ORB;
import org.omg.CORBA.portable.ObjectImpl;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;

/**
 * Empty-call latency with and without the dthreads interceptors, JacORB (IDL) and the GlassFish ORB
 * (RMI-IIOP), client and server ORBs in this JVM over loopback.
 *
 * <p>Paired and interleaved: in each round every configuration makes {@code callsPerBlock} calls,
 * interleaved call by call in a random order, and the round keeps each configuration's median; the
 * overhead of a round is median(on) / median(off) for the same ORB; the result is the median over
 * rounds. Drift (JIT, GC, other load on the machine) hits both sides of a pair alike.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar org.dthreads.benchmarks.iiop.IiopInterceptorOverhead [rounds] [callsPerBlock]
 * </pre>
 */
public final class IiopInterceptorOverhead {

    private interface Call {
        void run() throws Exception;
    }

    private record Config(String name, Call call) {}

    private IiopInterceptorOverhead() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        int block = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        System.setProperty("javax.rmi.CORBA.UtilClass", "com.sun.corba.ee.impl.javax.rmi.CORBA.Util");
        System.setProperty("javax.rmi.CORBA.PortableRemoteObjectClass", "com.sun.corba.ee.impl.javax.rmi.PortableRemoteObject");
        System.setProperty("javax.rmi.CORBA.StubClass", "com.sun.corba.ee.impl.javax.rmi.CORBA.StubDelegateImpl");

        List<Config> configs = List.of(
                new Config("jacorb-off", jacorb(Mode.OFF)),
                new Config("jacorb-on", jacorb(Mode.DTHREADS)),
                new Config("jacorb-noop", jacorb(Mode.NOOP)),
                new Config("jacorb-rawctx", jacorb(Mode.RAW_CONTEXT)),
                new Config("glassfish-off", glassfish(Mode.OFF)),
                new Config("glassfish-on", glassfish(Mode.DTHREADS)),
                new Config("glassfish-noop", glassfish(Mode.NOOP)),
                new Config("glassfish-rawctx", glassfish(Mode.RAW_CONTEXT)));

        for (Config c : configs) { // warm-up
            for (int i = 0; i < 20_000; i++) {
                c.call().run();
            }
        }
        int n = configs.size();
        long[][] medians = new long[n][rounds];
        long[][] samples = new long[n][block];
        List<Integer> order = new ArrayList<>();
        for (int ci = 0; ci < n; ci++) {
            order.add(ci);
        }
        Random random = new Random(1);
        for (int r = 0; r < rounds; r++) {
            // interleaved call by call: configuration k's i-th call runs right after the others' i-th
            for (int i = 0; i < block; i++) {
                Collections.shuffle(order, random);
                for (int ci : order) {
                    Call call = configs.get(ci).call();
                    long t0 = System.nanoTime();
                    call.run();
                    samples[ci][i] = System.nanoTime() - t0;
                }
            }
            for (int ci = 0; ci < n; ci++) {
                Arrays.sort(samples[ci]);
                medians[ci][r] = samples[ci][block / 2];
            }
        }
        System.out.printf(Locale.ROOT, "rounds=%d callsPerBlock=%d java=%s%n", rounds, block, Runtime.version());
        for (int ci = 0; ci < configs.size(); ci++) {
            long[] m = medians[ci].clone();
            Arrays.sort(m);
            System.out.printf(Locale.ROOT, "%-14s median of block medians %7.1f us  (p25 %7.1f, p75 %7.1f)%n",
                    configs.get(ci).name(), m[rounds / 2] / 1e3, m[rounds / 4] / 1e3, m[3 * rounds / 4] / 1e3);
        }
        report("jacorb dthreads vs no interceptors", medians[0], medians[1]);
        report("jacorb empty interceptors vs none", medians[0], medians[2]);
        report("jacorb raw 16-byte context vs empty", medians[2], medians[3]);
        report("jacorb dthreads vs raw 16-byte context", medians[3], medians[1]);
        report("glassfish dthreads vs no interceptors", medians[4], medians[5]);
        report("glassfish empty interceptors vs none", medians[4], medians[6]);
        report("glassfish raw 16-byte context vs empty", medians[6], medians[7]);
        report("glassfish dthreads vs raw 16-byte context", medians[7], medians[5]);
        System.exit(0);
    }

    private static void report(String orb, long[] off, long[] on) {
        double[] o = new double[off.length];
        double[] w = new double[on.length];
        for (int i = 0; i < off.length; i++) {
            o[i] = off[i];
            w[i] = on[i];
        }
        report(orb, o, w);
    }

    private static void report(String orb, double[] off, double[] on) {
        double[] ratio = new double[off.length];
        for (int i = 0; i < off.length; i++) {
            ratio[i] = on[i] / off[i];
        }
        Arrays.sort(ratio);
        int n = ratio.length;
        System.out.printf(Locale.ROOT, "%-42s median of paired ratios %+6.1f%%  (p25 %+6.1f%%, p75 %+6.1f%%)%n",
                orb, (ratio[n / 2] - 1) * 100, (ratio[n / 4] - 1) * 100, (ratio[3 * n / 4] - 1) * 100);
    }

    private enum Mode { OFF, DTHREADS, NOOP, RAW_CONTEXT }

    private static Properties props(boolean jacorb, Mode mode) {
        Properties p = new Properties();
        if (jacorb) {
            p.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
            p.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
            p.setProperty("OAIAddr", "127.0.0.1");
            p.setProperty("OAPort", "0");
            p.setProperty("jacorb.log.default.verbosity", "0");
        } else {
            p.setProperty("org.omg.CORBA.ORBClass", "com.sun.corba.ee.impl.orb.ORBImpl");
            p.setProperty("org.omg.CORBA.ORBSingletonClass", "com.sun.corba.ee.impl.orb.ORBSingleton");
            p.setProperty("com.sun.corba.ee.ORBServerHost", "127.0.0.1");
            p.setProperty("com.sun.corba.ee.ORBServerPort", "0");
        }
        if (mode == Mode.DTHREADS) {
            p.setProperty("org.omg.PortableInterceptor.ORBInitializerClass." + DThreadsOrbInitializer.class.getName(), "");
        } else if (mode == Mode.NOOP) {
            p.setProperty("org.omg.PortableInterceptor.ORBInitializerClass." + NoopInterceptors.class.getName(), "");
        } else if (mode == Mode.RAW_CONTEXT) {
            p.setProperty("org.omg.PortableInterceptor.ORBInitializerClass." + RawContextInterceptors.class.getName(), "");
        }
        return p;
    }

    private static POA rootPoa(ORB orb) throws Exception {
        POA poa = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
        poa.the_POAManager().activate();
        return poa;
    }

    private static Call jacorb(Mode mode) throws Exception {
        ORB server = ORB.init(new String[0], props(true, mode));
        Thread t = new Thread(server::run, "jacorb-server");
        t.setDaemon(true);
        t.start();
        String ior = server.object_to_string(rootPoa(server).servant_to_reference(new PingServant()));
        ORB client = ORB.init(new String[0], props(true, mode));
        ObjectImpl target = (ObjectImpl) client.string_to_object(ior);
        return () -> PingServant.call(target);
    }

    private static Call glassfish(Mode mode) throws Exception {
        ORB server = ORB.init(new String[0], props(false, mode));
        rootPoa(server);
        PingImpl impl = new PingImpl();
        PortableRemoteObject.exportObject(impl);
        Tie tie = Util.getTie(impl);
        tie.orb(server);
        String ior = server.object_to_string(tie.thisObject());
        ORB client = ORB.init(new String[0], props(false, mode));
        Ping ping = (Ping) PortableRemoteObject.narrow(client.string_to_object(ior), Ping.class);
        if (ping instanceof javax.rmi.CORBA.Stub s) {
            try {
                s.connect(client);
            } catch (java.rmi.RemoteException alreadyConnected) {
                // fine
            }
        }
        return ping::ping;
    }

    /** The RMI-IIOP servant. */
    public static final class PingImpl implements Ping {
        @Override
        public void ping() {}
    }
}
