package org.dthreads.benchmarks.realworld;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * The child JVM of {@link PairedJvms}: runs the warm-up rounds, then the timed rounds of one
 * {@link RealWorkload}, and prints one line per timed round and a summary that the parent parses:
 * <pre>
 * round &lt;ms&gt;
 * result digest=&lt;d&gt; medianMs=&lt;ms&gt; gcMsTimed=&lt;ms&gt; gcCountTimed=&lt;n&gt; cpuMs=&lt;ms&gt; allocMb=&lt;MB&gt; metaspaceMb=&lt;MB&gt;
 * </pre>
 * Every round's digest must equal the first's (else it exits with status 3). {@code gcMsTimed} is the
 * collectors' accumulated time during the timed rounds (JMX), beside the parent's whole-JVM pause total
 * from {@code -Xlog:gc}; {@code allocMb} the heap allocated per timed round (every thread, {@link HeapAllocation});
 * {@code metaspaceMb} the metaspace in use after the last round (crossing its first GC threshold, 21 MB committed by
 * default, starts a concurrent cycle after which G1 shrinks the heap: issue 16). Runnable alone, e.g. under JFR:
 * {@code java [-javaagent:...] -cp benchmarks.jar org.dthreads.benchmarks.realworld.WorkloadJvm derby [size] [warmup] [rounds]}.
 */
public final class WorkloadJvm {

    private WorkloadJvm() {}

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable t) {
            t.printStackTrace();
            // a failed run must end the JVM too: a workload's non-daemon threads (a Derby client still running,
            // a pool) would otherwise keep it alive, and the parent waiting for it
            System.exit(1);
        }
    }

    private static void run(String[] args) throws Exception {
        RealWorkload workload = RealWorkload.named(args[0]);
        int size = args.length > 1 ? Integer.parseInt(args[1]) : workload.defaultSize;
        int warmup = args.length > 2 ? Integer.parseInt(args[2]) : workload.warmupRounds;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : workload.timedRounds;
        Long expected = null;
        for (int i = 0; i < warmup; i++) {
            expected = check(expected, workload.round(size));
        }
        long[] gcBefore = gcTotals();
        double[] ms = new double[rounds];
        // the mean over all timed rounds, not a median of per-round values: the OS counts CPU time in ticks of
        // 10 ms, so one round's figure of 120-130 ms moves by 8% on the tick alone; the total over the rounds
        // divided by their number resolves 10 ms / rounds
        HeapAllocation allocation = HeapAllocation.start();
        long cpuStart = processCpuNanos();
        for (int i = 0; i < rounds; i++) {
            long t0 = System.nanoTime();
            long digest = workload.round(size);
            ms[i] = (System.nanoTime() - t0) / 1e6;
            expected = check(expected, digest);
            System.out.printf("round %.3f%n", ms[i]);
        }
        double cpuMsPerRound = (processCpuNanos() - cpuStart) / 1e6 / rounds;
        long[] gcAfter = gcTotals();
        double allocMbPerRound = allocation.allocatedBytes() / 1e6 / rounds;
        Arrays.sort(ms);
        if (workload == RealWorkload.DERBY && DerbyWorkload.RETRIES.get() > 0) {
            System.out.println("note derby deadlock retries " + DerbyWorkload.RETRIES.get());
        }
        System.out.printf("result digest=%d medianMs=%.3f gcMsTimed=%d gcCountTimed=%d cpuMs=%.3f allocMb=%.1f"
                + " metaspaceMb=%.1f%n", expected, ms[rounds / 2], gcAfter[0] - gcBefore[0], gcAfter[1] - gcBefore[1],
                cpuMsPerRound, allocMbPerRound, HeapAllocation.metaspaceUsed() / 1e6);
        System.exit(0); // the databases' and pools' non-daemon threads must not keep the JVM alive
    }

    private static Long check(Long expected, long digest) {
        if (expected != null && expected != digest) {
            System.out.println("error digest " + digest + " differs from the first round's " + expected);
            System.exit(3);
        }
        return digest;
    }

    /**
     * CPU time of the whole process (every thread: the workload's, the compilers', the collectors'), or 0 if the
     * platform does not tell. On a shared machine it moves far less with the load than the wall time does.
     */
    private static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? Math.max(0, os.getProcessCpuTime()) : 0;
    }

    /** {total collection ms, total collections} over every collector. */
    private static long[] gcTotals() {
        long ms = 0;
        long count = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += Math.max(0, gc.getCollectionTime());
            count += Math.max(0, gc.getCollectionCount());
        }
        return new long[] {ms, count};
    }
}
