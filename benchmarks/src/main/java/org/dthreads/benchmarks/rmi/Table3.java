package org.dthreads.benchmarks.rmi;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.rmi.registry.LocateRegistry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.dthreads.benchmarks.rmi.plain.PlainEmpty;
import org.dthreads.benchmarks.rmi.twinned.Empty;

/**
 * The paper's Table 3 on this machine: empty JRMP calls with 0, 1 and 2 {@code String} parameters,
 * plain versus carrying the thread class, between two JVMs on loopback.
 *
 * <p>Both kinds of call go to the same server object from the same client JVM, interleaved in
 * alternating blocks, so machine noise hits both alike: {@code PlainEmpty} is outside the agent's
 * scope (a plain RMI call, through the same JDK stub handler), {@code Empty} has twins (the full
 * dthreads path: hook, class lookup, suspension bookkeeping, the extra {@code long}, server-side
 * binding). Each round yields the median latency of each kind; the report gives the median of the
 * per-round ratios with a 95% bootstrap confidence interval. JMH is not used: it cannot interleave
 * two measurements pairwise within one run.
 *
 * <p>Run it with the agent, from the repository root:
 * <pre>
 * java -javaagent:dthreads-agent/target/dthreads-agent.jar -Ddthreads.include=org.dthreads.benchmarks.rmi.twinned. \
 *      -cp benchmarks/target/benchmarks.jar org.dthreads.benchmarks.rmi.Table3 [rounds] [callsPerBlock]
 * </pre>
 */
public final class Table3 {

    private Table3() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        int block = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        try {
            Empty.class.getMethod("m0-dthreads", long.class);
        } catch (NoSuchMethodException e) {
            System.err.println("Table3: Empty has no twins: run with -javaagent:dthreads-agent/target/dthreads-agent.jar"
                    + " -Ddthreads.include=org.dthreads.benchmarks.rmi.twinned.");
            System.exit(2);
        }
        String agent = args.length > 2 ? args[2] : "dthreads-agent/target/dthreads-agent.jar";
        Process server = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-javaagent:" + agent, "-Ddthreads.include=org.dthreads.benchmarks.rmi.twinned.",
                "-cp", System.getProperty("java.class.path"), EmptyServer.class.getName())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            String ready;
            while ((ready = out.readLine()) != null && !ready.startsWith("READY")) {
                // skip
            }
            if (ready == null) {
                throw new IllegalStateException("server did not start");
            }
            int port = Integer.parseInt(ready.substring("READY ".length()).trim());
            var registry = LocateRegistry.getRegistry("127.0.0.1", port);
            Empty dthreads = (Empty) registry.lookup("empty");
            PlainEmpty plain = (PlainEmpty) registry.lookup("empty");
            System.out.printf(Locale.ROOT, "Table 3: %d rounds x %d calls per kind and row, JDK %s, %d cores%n",
                    rounds, block, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
            System.out.println("| params | plain median (µs) | dthreads median (µs) | overhead (median of paired ratios) | 95% CI |");
            System.out.println("| --- | --- | --- | --- | --- |");
            for (int params = 0; params <= 2; params++) {
                Row row = measure(params, rounds, block, plain, dthreads);
                System.out.printf(Locale.ROOT, "| %d | %.2f | %.2f | %+.2f%% | [%+.2f%%, %+.2f%%] |%n", params,
                        row.plainMedian / 1000.0, row.dthreadsMedian / 1000.0, row.overhead * 100, row.low * 100, row.high * 100);
            }
        } finally {
            server.getOutputStream().close();
            server.destroy();
        }
    }

    private record Row(double plainMedian, double dthreadsMedian, double overhead, double low, double high) {}

    private static Row measure(int params, int rounds, int block, PlainEmpty plain, Empty dthreads) throws Exception {
        long[] p = new long[block];
        long[] d = new long[block];
        for (int warm = 0; warm < 5; warm++) {
            run(params, plain, dthreads, false, p);
            run(params, plain, dthreads, true, d);
        }
        double[] ratios = new double[rounds];
        double[] plainMedians = new double[rounds];
        double[] dthreadsMedians = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            boolean plainFirst = (r & 1) == 0;
            run(params, plain, dthreads, !plainFirst, plainFirst ? p : d);
            run(params, plain, dthreads, plainFirst, plainFirst ? d : p);
            plainMedians[r] = median(p);
            dthreadsMedians[r] = median(d);
            ratios[r] = dthreadsMedians[r] / plainMedians[r] - 1;
        }
        double[] ci = bootstrapMedianCi(ratios, new Random(42));
        return new Row(median(plainMedians), median(dthreadsMedians), median(ratios), ci[0], ci[1]);
    }

    private static void run(int params, PlainEmpty plain, Empty dthreads, boolean useDthreads, long[] nanos) throws Exception {
        for (int i = 0; i < nanos.length; i++) {
            long t0 = System.nanoTime();
            if (useDthreads) {
                switch (params) {
                    case 0 -> dthreads.m0();
                    case 1 -> dthreads.m1("a");
                    default -> dthreads.m2("a", "b");
                }
            } else {
                switch (params) {
                    case 0 -> plain.m0();
                    case 1 -> plain.m1("a");
                    default -> plain.m2("a", "b");
                }
            }
            nanos[i] = System.nanoTime() - t0;
        }
    }

    static double median(long[] values) {
        long[] copy = values.clone();
        Arrays.sort(copy);
        int n = copy.length;
        return n % 2 == 1 ? copy[n / 2] : (copy[n / 2 - 1] + copy[n / 2]) / 2.0;
    }

    static double median(double[] values) {
        double[] copy = values.clone();
        Arrays.sort(copy);
        int n = copy.length;
        return n % 2 == 1 ? copy[n / 2] : (copy[n / 2 - 1] + copy[n / 2]) / 2.0;
    }

    static double[] bootstrapMedianCi(double[] values, Random random) {
        int resamples = 2000;
        List<Double> medians = new ArrayList<>(resamples);
        double[] sample = new double[values.length];
        for (int b = 0; b < resamples; b++) {
            for (int i = 0; i < sample.length; i++) {
                sample[i] = values[random.nextInt(values.length)];
            }
            medians.add(median(sample));
        }
        medians.sort(null);
        return new double[] {medians.get((int) (resamples * 0.025)), medians.get((int) (resamples * 0.975) - 1)};
    }
}
