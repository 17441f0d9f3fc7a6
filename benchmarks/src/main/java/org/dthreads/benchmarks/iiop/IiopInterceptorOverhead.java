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
 * Call latency with and without dthreads, JacORB (IDL) and the GlassFish ORB (RMI-IIOP), client and
 * server ORBs in this JVM over loopback: an empty call and a call with a 1 KB argument.
 *
 * <p>Per ORB: no interceptors ({@code off}); empty interceptors ({@code noop}); interceptors carrying a
 * constant 16-byte context ({@code rawctx}); dthreads on its Portable Interceptor path ({@code pi},
 * {@code -Ddthreads.iiop.path=portable} while that ORB pair is initialized); dthreads on its fast path
 * ({@code fast}: the GlassFish ORB's request dispatchers; JacORB's hooks, which need the agent — run with
 * {@code -javaagent:dthreads-agent/target/dthreads-agent.jar}, otherwise the JacORB {@code fast} ORBs fall
 * back to the PI path, printed at start).
 *
 * <p>Paired and interleaved: in each round every configuration makes {@code callsPerBlock} calls,
 * interleaved call by call in a random order, and the round keeps each configuration's median; the
 * overhead of a round is median(a) / median(b) for the same ORB; the result is the median over rounds.
 * Drift (JIT, GC, other load on the machine) hits both sides of a pair alike.
 *
 * <pre>
 * java [-javaagent:dthreads-agent.jar] -cp benchmarks/target/benchmarks.jar \
 *     org.dthreads.benchmarks.iiop.IiopInterceptorOverhead [rounds] [callsPerBlock] [configurations regex]
 * </pre>
 */
public final class IiopInterceptorOverhead {

    private interface Call {
        void run() throws Exception;
    }

    private record Config(String name, Call call) {}

    /** The two calls measured on one client/server ORB pair. */
    private record Calls(Call empty, Call kilobyte) {}

    private static final byte[] KILOBYTE = new byte[1024];

    private IiopInterceptorOverhead() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        int block = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        // optional: only the configurations whose name matches (for profiling one of them)
        java.util.regex.Pattern only = java.util.regex.Pattern.compile(args.length > 2 ? args[2] : ".*");
        System.setProperty("javax.rmi.CORBA.UtilClass", "com.sun.corba.ee.impl.javax.rmi.CORBA.Util");
        System.setProperty("javax.rmi.CORBA.PortableRemoteObjectClass", "com.sun.corba.ee.impl.javax.rmi.PortableRemoteObject");
        System.setProperty("javax.rmi.CORBA.StubClass", "com.sun.corba.ee.impl.javax.rmi.CORBA.StubDelegateImpl");

        List<Config> configs = new ArrayList<>();
        for (boolean jacorb : new boolean[] {true, false}) {
            String orb = jacorb ? "jacorb" : "glassfish";
            for (Mode mode : Mode.values()) {
                String name = orb + "-" + mode.label;
                boolean kilobyte = mode == Mode.OFF || mode == Mode.PORTABLE || mode == Mode.FAST;
                if (!only.matcher(name).matches() && !(kilobyte && only.matcher(name + "-1k").matches())) {
                    continue;
                }
                Calls c = jacorb ? jacorb(mode) : glassfish(mode);
                if (only.matcher(name).matches()) {
                    configs.add(new Config(name, c.empty()));
                }
                if (kilobyte && only.matcher(name + "-1k").matches()) {
                    configs.add(new Config(name + "-1k", c.kilobyte()));
                }
            }
        }

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
            System.out.printf(Locale.ROOT, "%-20s median of block medians %7.1f us  (p25 %7.1f, p75 %7.1f)%n",
                    configs.get(ci).name(), m[rounds / 2] / 1e3, m[rounds / 4] / 1e3, m[3 * rounds / 4] / 1e3);
        }
        for (String orb : new String[] {"jacorb", "glassfish"}) {
            if (configs.size() < 16) {
                break; // a subset: no ratios
            }
            report(orb + " fast path vs no interceptors", medians, configs, orb + "-off", orb + "-fast");
            report(orb + " PI path vs no interceptors", medians, configs, orb + "-off", orb + "-pi");
            report(orb + " fast path vs PI path", medians, configs, orb + "-pi", orb + "-fast");
            report(orb + " empty interceptors vs none", medians, configs, orb + "-off", orb + "-noop");
            report(orb + " raw 16-byte context vs empty", medians, configs, orb + "-noop", orb + "-rawctx");
            report(orb + " 1 KB: fast path vs none", medians, configs, orb + "-off-1k", orb + "-fast-1k");
            report(orb + " 1 KB: PI path vs none", medians, configs, orb + "-off-1k", orb + "-pi-1k");
        }
        System.exit(0);
    }

    private static void report(String what, long[][] medians, List<Config> configs, String base, String other) {
        int b = -1;
        int o = -1;
        for (int i = 0; i < configs.size(); i++) {
            b = configs.get(i).name().equals(base) ? i : b;
            o = configs.get(i).name().equals(other) ? i : o;
        }
        report(what, medians[b], medians[o]);
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
        System.out.printf(Locale.ROOT, "%-44s median of paired ratios %+6.1f%%  (p25 %+6.1f%%, p75 %+6.1f%%)%n",
                orb, (ratio[n / 2] - 1) * 100, (ratio[n / 4] - 1) * 100, (ratio[3 * n / 4] - 1) * 100);
    }

    private enum Mode {
        OFF("off"), NOOP("noop"), RAW_CONTEXT("rawctx"), PORTABLE("pi"), FAST("fast");

        final String label;

        Mode(String label) {
            this.label = label;
        }
    }

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
        if (mode == Mode.PORTABLE || mode == Mode.FAST) {
            p.setProperty("org.omg.PortableInterceptor.ORBInitializerClass." + DThreadsOrbInitializer.class.getName(), "");
        } else if (mode == Mode.NOOP) {
            p.setProperty("org.omg.PortableInterceptor.ORBInitializerClass." + NoopInterceptors.class.getName(), "");
        } else if (mode == Mode.RAW_CONTEXT) {
            p.setProperty("org.omg.PortableInterceptor.ORBInitializerClass." + RawContextInterceptors.class.getName(), "");
        }
        return p;
    }

    /** ORB.init, with the PI path forced for {@link Mode#PORTABLE}; says which path a dthreads ORB got. */
    private static ORB init(boolean jacorb, Mode mode, String role) {
        if (mode == Mode.PORTABLE) {
            System.setProperty("dthreads.iiop.path", "portable");
        }
        try {
            ORB orb = ORB.init(new String[0], props(jacorb, mode));
            if (mode == Mode.PORTABLE || mode == Mode.FAST) {
                boolean interceptors = jacorb ? ((org.jacorb.orb.ORB) orb).hasClientRequestInterceptors()
                        : !(((com.sun.corba.ee.spi.orb.ORB) orb).getRequestDispatcherRegistry()
                                .getClientRequestDispatcher(2).getClass().getName().startsWith("org.dthreads."));
                System.out.printf(Locale.ROOT, "%s %s %s ORB: dthreads on the %s path%n", jacorb ? "jacorb" : "glassfish",
                        mode.label, role, interceptors ? "Portable Interceptor" : "fast");
            }
            return orb;
        } finally {
            System.clearProperty("dthreads.iiop.path");
        }
    }

    private static POA rootPoa(ORB orb) throws Exception {
        POA poa = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
        poa.the_POAManager().activate();
        return poa;
    }

    private static Calls jacorb(Mode mode) throws Exception {
        ORB server = init(true, mode, "server");
        Thread t = new Thread(server::run, "jacorb-server");
        t.setDaemon(true);
        t.start();
        String ior = server.object_to_string(rootPoa(server).servant_to_reference(new PingServant()));
        ORB client = init(true, mode, "client");
        ObjectImpl target = (ObjectImpl) client.string_to_object(ior);
        return new Calls(() -> PingServant.call(target), () -> PingServant.take(target, KILOBYTE));
    }

    private static Calls glassfish(Mode mode) throws Exception {
        ORB server = init(false, mode, "server");
        rootPoa(server);
        PingImpl impl = new PingImpl();
        PortableRemoteObject.exportObject(impl);
        Tie tie = Util.getTie(impl);
        tie.orb(server);
        String ior = server.object_to_string(tie.thisObject());
        ORB client = init(false, mode, "client");
        Ping ping = (Ping) PortableRemoteObject.narrow(client.string_to_object(ior), Ping.class);
        if (ping instanceof javax.rmi.CORBA.Stub s) {
            try {
                s.connect(client);
            } catch (java.rmi.RemoteException alreadyConnected) {
                // fine
            }
        }
        return new Calls(ping::ping, () -> ping.take(KILOBYTE));
    }

    /** The RMI-IIOP servant. */
    public static final class PingImpl implements Ping {
        @Override
        public void ping() {}

        @Override
        public void take(byte[] data) {}
    }
}
