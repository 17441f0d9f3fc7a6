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
 * The paired run of the issue-18 callback benchmarks ({@link CallbackLatency} over JRMP,
 * {@code iiop.IiopCallbackLatency} over JacORB): two pairs of site JVMs on loopback, all with the agent, pair
 * <em>O</em> in {@code -Ddthreads.callbacks=original} mode and pair <em>T</em> in take-over mode (both take-over
 * for the A/A control). With {@code -Dbench.virtualCaller=true} on the driver (JDK 21 or later), the sites make their
 * calls from virtual threads ({@link CallbackRuns}). At the end it prints where each caller's callbacks ran, and flags
 * a pair whose callbacks did not run where its mode puts them. In each pair one JVM calls the other's {@code bounce} at depth 0 (a plain call) and
 * depth 1 (one callback hop); blocks of calls alternate between the pairs, order swapped every round, and the
 * table gives the median of the per-round differences O − T (µs) and ratios O / T with 95% bootstrap intervals.
 *
 * <p>A site JVM speaks a line protocol on its standard input and output: it prints {@code READY <endpoint>}
 * once it serves; {@code peer <endpoint>} makes it look the other site up ({@code OK}); {@code run <depth>
 * <calls>} makes it call the peer's {@code bounce} that often on its reading thread and print
 * {@code MEDIAN <ns>}; {@code where} makes it print {@code WHERE <on the calling thread> <elsewhere>}, the counts of
 * {@code bounce}s it served by thread; it ends when its input closes. Lines that start otherwise (logging) are skipped.
 */
public final class CallbackPairs {

    private CallbackPairs() {}

    /** One site JVM of a pair, driven through its standard input and output. */
    private static final class Jvm implements AutoCloseable {
        final Process process;
        final BufferedReader out;
        final PrintStream in;
        final String endpoint;

        Jvm(String agent, List<String> jvmArgs, boolean original, List<String> site) throws IOException {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-javaagent:" + agent));
            command.addAll(jvmArgs);
            if (Boolean.getBoolean("bench.virtualCaller")) {
                command.add("-Dbench.virtualCaller=true");
            }
            if (original) {
                command.add("-Ddthreads.callbacks=original");
            }
            command.addAll(List.of("-cp", System.getProperty("java.class.path")));
            command.addAll(site);
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
            endpoint = expect("READY ");
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
            in.println("peer " + other.endpoint);
            expect("OK");
        }

        double run(int depth, int calls) throws IOException {
            in.println("run " + depth + " " + calls);
            return Double.parseDouble(expect("MEDIAN "));
        }

        /** How many {@code bounce}s this site served on its calling thread, and elsewhere. */
        long[] where() throws IOException {
            in.println("where");
            String[] counts = expect("WHERE ").split(" ");
            return new long[] {Long.parseLong(counts[0]), Long.parseLong(counts[1])};
        }

        @Override
        public void close() {
            in.close();
            process.destroy();
        }
    }

    /**
     * Runs the paired benchmark and prints its table.
     *
     * @param over what follows "Callbacks on the original thread" in the title ("" for JRMP)
     * @param site the main class of a site JVM (the line protocol above) and its arguments
     * @param jvmArgs extra arguments of every site JVM (before the mode)
     * @param args the benchmark's command line: {@code [rounds] [callsPerBlock] [ot|aa]} (and the caller's own words)
     */
    public static void run(String over, List<String> site, List<String> jvmArgs, String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        int block = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        boolean aa = args.length > 2 && args[2].equals("aa");
        String agent = "dthreads-agent/target/dthreads-agent.jar";
        try (Jvm oCaller = new Jvm(agent, jvmArgs, !aa, site); Jvm oCallee = new Jvm(agent, jvmArgs, !aa, site);
                Jvm tCaller = new Jvm(agent, jvmArgs, false, site);
                Jvm tCallee = new Jvm(agent, jvmArgs, false, site)) {
            oCaller.peer(oCallee);
            oCallee.peer(oCaller);
            tCaller.peer(tCallee);
            tCallee.peer(tCaller);
            System.out.printf(Locale.ROOT, "Callbacks on the original thread%s%s: %d rounds x %d calls per pair and depth, %s callers, JDK %s, %d cores%n",
                    over, aa ? " (A/A: both pairs take-over)" : "", rounds, block,
                    Boolean.getBoolean("bench.virtualCaller") ? "virtual" : "platform", System.getProperty("java.version"),
                    Runtime.getRuntime().availableProcessors());
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
            checkWhere("O", oCaller.where(), !aa);
            checkWhere("T", tCaller.where(), false);
        }
    }

    /**
     * Prints where the callbacks of a pair's caller ran, and a warning if that is not its mode's place: all on the
     * calling thread in original mode, none in take-over mode (a benchmark jar built with a stale dthreads module
     * measured take-over mode in both pairs).
     */
    private static void checkWhere(String pair, long[] where, boolean original) {
        boolean right = original ? where[1] == 0 && where[0] > 0 : where[0] == 0;
        System.out.printf(Locale.ROOT, "Pair %s (%s): %d callbacks ran on the calling thread, %d elsewhere%s%n", pair,
                original ? "original" : "take-over", where[0], where[1], right ? "" : "  <-- WRONG for the mode: not measuring it");
    }

    /**
     * The {@code run} command of a site: {@code calls} timed calls of {@code call}, printed as their median.
     */
    public static String median(Runnable call, int calls) {
        long[] nanos = new long[calls];
        for (int i = 0; i < calls; i++) {
            long t0 = System.nanoTime();
            call.run();
            nanos[i] = System.nanoTime() - t0;
        }
        return String.format(Locale.ROOT, "MEDIAN %.1f", Table3.median(nanos));
    }
}
