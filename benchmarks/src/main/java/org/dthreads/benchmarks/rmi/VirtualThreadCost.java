package org.dthreads.benchmarks.rmi;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.dthreads.benchmarks.rmi.twinned.Bounce;
import org.dthreads.monitor.Monitors;

/**
 * Issue 18: what an emulated monitor and a dthreads JRMP call cost on a virtual thread against a platform thread,
 * paired in one caller JVM. Two JVMs with the agent on loopback (JDK 21 or later): a callee ({@link CallbackSite})
 * and a caller ({@link Caller}). Each round runs, in the caller, one block on a fresh platform thread and one on a
 * fresh virtual thread (order swapped every round) of:
 * <ul>
 *   <li>{@code lock}: {@code Monitors.enter(o); Monitors.exit(o)} on an object of the thread's own, uncontended
 *       (what rewritten {@code synchronized} runs); ns per pair, block mean;</li>
 *   <li>{@code call}: {@code peer.bounce(self, 0)}, a plain remote call; median µs of the block;</li>
 *   <li>{@code callback}: {@code peer.bounce(self, 1)}: the callee calls the caller back once; median µs.</li>
 * </ul>
 * Reported: the medians over rounds per kind, and the median of the per-round differences virtual − platform
 * and ratios virtual / platform with 95% bootstrap intervals. Run from the repository root:
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar org.dthreads.benchmarks.rmi.VirtualThreadCost [rounds] [callsPerBlock] [takeover|original|plain] [java]
 * </pre>
 * {@code original} runs both JVMs with {@code -Ddthreads.callbacks=original}; {@code plain} runs them without the
 * agent (plain RMI: what the JDK's virtual-thread socket I/O costs by itself; the lock row then runs the same
 * runtime code, called directly); {@code java} is the launcher of the two JVMs (default
 * {@code /usr/lib/jvm/temurin-25-jdk-amd64/bin/java}).
 */
public final class VirtualThreadCost {

    private static final String INCLUDE = "-Ddthreads.include=org.dthreads.benchmarks.rmi.twinned.";
    private static final int LOCK_PAIRS = 2_000_000;

    private VirtualThreadCost() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        int block = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        String mode = args.length > 2 ? args[2] : "takeover";
        String java = args.length > 3 ? args[3] : "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java";
        String agent = "dthreads-agent/target/dthreads-agent.jar";
        try (Jvm callee = new Jvm(java, agent, mode, CallbackSite.class);
                Jvm caller = new Jvm(java, agent, mode, Caller.class)) {
            caller.ask("peer " + callee.port, "OK");
            callee.ask("peer " + caller.port, "OK");
            System.out.printf(Locale.ROOT, "Virtual against platform threads (%s): %d rounds, %d lock pairs and %d calls per block, %s, %d cores%n",
                    mode.equals("plain") ? "no agent" : mode + " mode", rounds, LOCK_PAIRS, block, caller.ask("version", "VERSION "),
                    Runtime.getRuntime().availableProcessors());
            System.out.println("| operation | platform | virtual | virtual − platform | 95% CI | ratio | 95% CI |");
            System.out.println("| --- | --- | --- | --- | --- | --- | --- |");
            String[][] ops = {{"lock " + LOCK_PAIRS, "emulated lock + unlock (ns)", "1"},
                    {"run 0 " + block, "remote call, no callback (µs)", "1000"},
                    {"run 1 " + block, "remote call with one callback (µs)", "1000"}};
            for (String[] op : ops) {
                double unit = Double.parseDouble(op[2]);
                for (int warm = 0; warm < 5; warm++) {
                    caller.measure(op[0], "platform");
                    caller.measure(op[0], "virtual");
                }
                double[] p = new double[rounds];
                double[] v = new double[rounds];
                double[] diff = new double[rounds];
                double[] ratio = new double[rounds];
                for (int r = 0; r < rounds; r++) {
                    if ((r & 1) == 0) {
                        p[r] = caller.measure(op[0], "platform");
                        v[r] = caller.measure(op[0], "virtual");
                    } else {
                        v[r] = caller.measure(op[0], "virtual");
                        p[r] = caller.measure(op[0], "platform");
                    }
                    diff[r] = (v[r] - p[r]) / unit;
                    ratio[r] = v[r] / p[r];
                }
                double[] diffCi = Table3.bootstrapMedianCi(diff, new Random(42));
                double[] ratioCi = Table3.bootstrapMedianCi(ratio, new Random(43));
                System.out.printf(Locale.ROOT, "| %s | %.2f | %.2f | %+.2f | [%+.2f, %+.2f] | %.3f | [%.3f, %.3f] |%n", op[1],
                        Table3.median(p) / unit, Table3.median(v) / unit, Table3.median(diff), diffCi[0], diffCi[1],
                        Table3.median(ratio), ratioCi[0], ratioCi[1]);
            }
        }
    }

    /** One JVM, driven through its standard input and output. */
    private static final class Jvm implements AutoCloseable {
        final Process process;
        final BufferedReader out;
        final PrintStream in;
        final int port;

        Jvm(String java, String agent, String mode, Class<?> main) throws IOException {
            List<String> command = new ArrayList<>(List.of(java));
            if (!mode.equals("plain")) {
                command.addAll(List.of("-javaagent:" + agent, INCLUDE));
            }
            if (mode.equals("original")) {
                command.add("-Ddthreads.callbacks=original");
            }
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
            port = Integer.parseInt(expect("READY "));
        }

        String expect(String prefix) throws IOException {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith(prefix)) {
                    return line.substring(prefix.length()).trim();
                }
            }
            throw new IOException("JVM ended before " + prefix);
        }

        String ask(String command, String answer) throws IOException {
            in.println(command);
            return expect(answer);
        }

        double measure(String op, String kind) throws IOException {
            return Double.parseDouble(ask(op + " " + kind, "RESULT "));
        }

        @Override
        public void close() {
            in.close();
            process.destroy();
        }
    }

    /**
     * The calling JVM: exports a {@link Bounce} (the callback target), prints {@code READY <registry port>}, then
     * obeys its standard input: {@code peer <port>}; {@code lock <pairs> <kind>} prints {@code RESULT <ns per
     * pair>}; {@code run <depth> <calls> <kind>} prints {@code RESULT <median ns>}; kind is {@code platform} or
     * {@code virtual}, a fresh thread of that kind per block.
     */
    public static final class Caller {
        private Caller() {}

        public static void main(String[] args) throws Exception {
            System.setProperty("java.rmi.server.hostname", "127.0.0.1");
            Echo echo = new Echo();
            Bounce self = (Bounce) UnicastRemoteObject.exportObject(echo, 0);
            echo.self = self;
            int port;
            try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort();
            }
            LocateRegistry.createRegistry(port).rebind("bounce", self);
            System.out.println("READY " + port);
            Bounce peer = null;
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] w = line.trim().split(" ");
                switch (w[0]) {
                    case "peer":
                        peer = (Bounce) LocateRegistry.getRegistry("127.0.0.1", Integer.parseInt(w[1])).lookup("bounce");
                        System.out.println("OK");
                        break;
                    case "version":
                        System.out.println("VERSION JDK " + System.getProperty("java.version"));
                        break;
                    case "lock": {
                        int pairs = Integer.parseInt(w[1]);
                        double ns = onThread(w[2], () -> lockPairs(pairs));
                        System.out.println(String.format(Locale.ROOT, "RESULT %.3f", ns));
                        break;
                    }
                    case "run": {
                        Bounce target = peer;
                        int depth = Integer.parseInt(w[1]);
                        long[] nanos = new long[Integer.parseInt(w[2])];
                        double median = onThread(w[3], () -> {
                            for (int i = 0; i < nanos.length; i++) {
                                long t0 = System.nanoTime();
                                target.bounce(self, depth);
                                nanos[i] = System.nanoTime() - t0;
                            }
                            return Table3.median(nanos);
                        });
                        System.out.println(String.format(Locale.ROOT, "RESULT %.1f", median));
                        break;
                    }
                    default:
                        System.out.println("ERROR unknown " + line);
                }
                System.out.flush();
            }
        }

        private static double lockPairs(int pairs) {
            Object o = new Object();
            long t0 = System.nanoTime();
            for (int i = 0; i < pairs; i++) {
                Monitors.enter(o);
                Monitors.exit(o);
            }
            return (System.nanoTime() - t0) / (double) pairs;
        }

        /** Runs {@code task} on a fresh thread of {@code kind} and returns its result. */
        private static double onThread(String kind, Callable<Double> task) throws Exception {
            AtomicReference<Object> result = new AtomicReference<>();
            Runnable body = () -> {
                try {
                    result.set(task.call());
                } catch (Exception | Error e) {
                    result.set(e);
                }
            };
            Thread t = kind.equals("virtual") ? startVirtual(body) : new Thread(body, "platform-block");
            if (!kind.equals("virtual")) {
                t.start();
            }
            t.join();
            if (result.get() instanceof Double d) {
                return d;
            }
            throw new RemoteException("block failed", (Throwable) result.get());
        }

        /** {@code Thread.startVirtualThread} (JDK 21), through a method handle: this module compiles for 17. */
        private static Thread startVirtual(Runnable body) throws Exception {
            try {
                MethodHandle start = MethodHandles.publicLookup().findStatic(Thread.class, "startVirtualThread",
                        MethodType.methodType(Thread.class, Runnable.class));
                return (Thread) start.invoke(body);
            } catch (Exception | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }
    }

    /** The caller's callback target: answers at once (the callee's {@code bounce(self, 1)} calls it with depth 0). */
    static final class Echo implements Bounce {
        Bounce self;

        @Override
        public int bounce(Bounce back, int depth) throws RemoteException {
            return depth == 0 ? 1 : back.bounce(self, depth - 1) + 1;
        }
    }
}
