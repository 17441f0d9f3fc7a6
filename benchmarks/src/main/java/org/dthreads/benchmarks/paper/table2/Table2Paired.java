package org.dthreads.benchmarks.paper.table2;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.LongSupplier;
import org.dthreads.benchmarks.paper.table2.LibraryVariants.Library;
import org.dthreads.benchmarks.paper.table2.LibraryVariants.Variant;

/**
 * Table 2 measured the way the JRMP and IIOP tables are, for a noisy shared machine: the three
 * builds of a library ({@link LibraryVariants}) live in one JVM, each in its own class loader (so
 * each has its own classes and JIT profiles); after a warm-up, every round runs {@code opsPerRound}
 * operations of each build, builds in a random order, and keeps each build's median; the ratio of
 * a round is median(build) / median(original) for the same round (paired), and the report is the
 * median over rounds of those ratios with p25 and p75. Noise that lasts longer than a round hits
 * all builds alike.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar org.dthreads.benchmarks.paper.table2.Table2Paired [rounds=40] [opsPerRound=10] [warmupSeconds=20]
 * </pre>
 */
public final class Table2Paired {

    private Table2Paired() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        int ops = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int warmupSeconds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        System.out.printf("JDK %s, %d processors; %d rounds x %d ops per build, %d s warm-up per library%n",
                System.getProperty("java.vm.version"), Runtime.getRuntime().availableProcessors(), rounds, ops, warmupSeconds);
        for (Library library : Library.values()) {
            Variant[] variants = Variant.values();
            LongSupplier[] workloads = new LongSupplier[variants.length];
            long expected = 0;
            for (int v = 0; v < variants.length; v++) {
                LibraryVariants.Build build = LibraryVariants.build(library, variants[v]);
                if (variants[v] != Variant.ORIGINAL && !build.verify().isEmpty()) {
                    throw new IllegalStateException(library + " " + variants[v] + " fails verification");
                }
                workloads[v] = build.newWorkload();
                long r = workloads[v].getAsLong();
                if (v == 0) {
                    expected = r;
                } else if (r != expected) {
                    throw new IllegalStateException(library + " " + variants[v] + " computes " + r + ", the original " + expected);
                }
            }
            long sink = 0;
            long end = System.nanoTime() + warmupSeconds * 1_000_000_000L;
            while (System.nanoTime() < end) {
                for (LongSupplier w : workloads) {
                    sink += w.getAsLong();
                }
            }
            Random random = new Random(42);
            double[][] medians = new double[variants.length][rounds];
            List<Integer> order = new ArrayList<>();
            for (int v = 0; v < variants.length; v++) {
                order.add(v);
            }
            for (int round = 0; round < rounds; round++) {
                Collections.shuffle(order, random);
                for (int v : order) {
                    double[] times = new double[ops];
                    for (int i = 0; i < ops; i++) {
                        long t0 = System.nanoTime();
                        sink += workloads[v].getAsLong();
                        times[i] = (System.nanoTime() - t0) / 1e6;
                    }
                    Arrays.sort(times);
                    medians[v][round] = times[ops / 2];
                }
            }
            System.out.printf("%s (sink %d)%n", library, sink & 1);
            for (int v = 0; v < variants.length; v++) {
                double[] ratio = new double[rounds];
                for (int round = 0; round < rounds; round++) {
                    ratio[round] = medians[v][round] / medians[0][round];
                }
                double[] m = medians[v].clone();
                Arrays.sort(m);
                Arrays.sort(ratio);
                System.out.printf("  %-15s median %8.3f ms/op; / original: median %.3f (p25 %.3f, p75 %.3f)%n",
                        variants[v], m[rounds / 2], ratio[rounds / 2], ratio[rounds / 4], ratio[(3 * rounds) / 4]);
            }
        }
    }
}
