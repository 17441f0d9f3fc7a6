package org.dthreads.benchmarks.rmi;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Issue 18: the cost of {@code -Ddthreads.callbacks=original} over JRMP, paired in one run. Two pairs of JVMs on
 * loopback, all with the agent: pair <em>O</em> in the original-thread mode, pair <em>T</em> in take-over mode
 * (the default). In each pair one JVM calls the other's {@code Bounce.bounce(self, depth)}:
 * <ul>
 *   <li>depth 0: a plain call, no callback (what the mode costs a call that is not a callback);</li>
 *   <li>depth 1: the callee calls the caller back once before returning (one callback hop: in O the callback
 *       runs on the calling thread, in T on a server thread).</li>
 * </ul>
 * Blocks of calls alternate between the pairs (order swapped every round), so machine noise hits both alike;
 * each round gives each pair's median per depth, and the report gives the median of the per-round differences
 * O − T (µs) and ratios O / T with 95% bootstrap confidence intervals. Run from the repository root:
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar org.dthreads.benchmarks.rmi.CallbackLatency [rounds] [callsPerBlock] [aa]
 * </pre>
 * With {@code aa} both pairs run in take-over mode (an A/A run: any difference is between pairs of JVMs, not
 * between the modes).
 */
public final class CallbackLatency {

    private static final String INCLUDE = "-Ddthreads.include=org.dthreads.benchmarks.rmi.twinned.";

    private CallbackLatency() {}

    /** One JVM of a pair, driven through its standard input and output. */
    private static final class Jvm implements AutoCloseable {
        final Process process;
        final BufferedReader out;
        final PrintStream in;
        final int port;

        Jvm(String agent, boolean original) throws IOException {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-javaagent:" + agent, INCLUDE));
            if (original) {
                command.add("-Ddthreads.callbacks=original");
            }
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), CallbackSite.class.getName()));
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
            throw new IOException("site ended before " + prefix);
        }

        void peer(Jvm other) throws IOException {
            in.println("peer " + other.port);
            expect("OK");
        }

        double run(int depth, int calls) throws IOException {
            in.println("run " + depth + " " + calls);
            return Double.parseDouble(expect("MEDIAN "));
        }

        @Override
        public void close() {
            in.close();
            process.destroy();
        }
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        int block = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        boolean aa = args.length > 2 && args[2].equals("aa");
        String agent = "dthreads-agent/target/dthreads-agent.jar";
        try (Jvm oCaller = new Jvm(agent, !aa); Jvm oCallee = new Jvm(agent, !aa);
                Jvm tCaller = new Jvm(agent, false); Jvm tCallee = new Jvm(agent, false)) {
            oCaller.peer(oCallee);
            oCallee.peer(oCaller);
            tCaller.peer(tCallee);
            tCallee.peer(tCaller);
            System.out.printf(Locale.ROOT, "Callbacks on the original thread%s: %d rounds x %d calls per pair and depth, JDK %s, %d cores%n",
                    aa ? " (A/A: both pairs take-over)" : "", rounds, block, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
            System.out.println("| call | take-over median (µs) | original median (µs) | difference (µs) | 95% CI | ratio | 95% CI |");
            System.out.println("| --- | --- | --- | --- | --- | --- | --- |");
            for (int depth = 0; depth <= 1; depth++) {
                for (int warm = 0; warm < 5; warm++) {
                    oCaller.run(depth, block);
                    tCaller.run(depth, block);
                }
                double[] o = new double[rounds];
                double[] t = new double[rounds];
                double[] diff = new double[rounds];
                double[] ratio = new double[rounds];
                for (int r = 0; r < rounds; r++) {
                    if ((r & 1) == 0) {
                        o[r] = oCaller.run(depth, block);
                        t[r] = tCaller.run(depth, block);
                    } else {
                        t[r] = tCaller.run(depth, block);
                        o[r] = oCaller.run(depth, block);
                    }
                    diff[r] = (o[r] - t[r]) / 1000.0;
                    ratio[r] = o[r] / t[r];
                }
                double[] diffCi = Table3.bootstrapMedianCi(diff, new Random(42));
                double[] ratioCi = Table3.bootstrapMedianCi(ratio, new Random(43));
                System.out.printf(Locale.ROOT, "| %s | %.2f | %.2f | %+.2f | [%+.2f, %+.2f] | %.3f | [%.3f, %.3f] |%n",
                        depth == 0 ? "plain (no callback)" : "with one callback", Table3.median(t) / 1000.0,
                        Table3.median(o) / 1000.0, Table3.median(diff), diffCi[0], diffCi[1], Table3.median(ratio),
                        ratioCi[0], ratioCi[1]);
            }
        }
    }
}
