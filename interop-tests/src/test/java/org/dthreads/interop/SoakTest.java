package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import example.soak.SoakSite;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Load and soak (profile {@code soak}, not the default build), once per callback mode ({@code -Ddthreads.callbacks}
 * {@code takeover}, the default, and {@code original}, on every site): 64 driver threads across 3 JVMs run zigzag
 * chains of depth 6 (every site visited twice, its monitor re-entered by the chain) ending in a wait/notify
 * hand-off, for {@code -Ddthreads.soak.seconds} (default 120) after a 15 s warm-up at the same concurrency (so that
 * the baselines below are taken with the pools at their working size). Checks: no chain stuck, exact operation
 * counts at every site, every token handed off and consumed, no emulated monitor left busy, heap after a full GC
 * within 10% of its value after warm-up, live threads within {@value #THREAD_SLACK} of their count after warm-up,
 * and (the original mode's helper threads, one per outgoing call in flight) every helper gone once its 30 s idle
 * time has passed: a helper stuck in a call, or one per call left behind, stays. The mode is seen at work: in the
 * original mode every chain's second visit of a site runs on the thread of its first (it sees a {@code ThreadLocal}
 * the first set), in take-over mode none does; and no callback waited out the queue bound for its thread. Prints
 * throughput and p99 per mode, both modes at the end ({@code -Ddthreads.soak.modes=original,takeover} runs them the
 * other way round, {@code =original} only one).
 *
 * <pre>./mvnw -B -Psoak -pl interop-tests -am verify -Dtest=SoakTest -Dsurefire.failIfNoSpecifiedTests=false</pre>
 */
@Tag("soak")
@ExtendWith(SitesExtension.class)
class SoakTest {

    /** Threads a site may have after the run beyond its count after warm-up (connections and pools breathing). */
    static final int THREAD_SLACK = 16;

    private static final int[] DRIVERS = {22, 21, 21};
    private static final String NOT_TAKEN = "was not taken by its original thread";
    private static final Map<String, String> RESULTS = new LinkedHashMap<>();

    @ParameterizedTest(name = "-Ddthreads.callbacks={0}")
    @MethodSource("org.dthreads.interop.SoakTest#modes")
    void sixtyFourThreadsAcrossThreeJvmsForTwoMinutes(String mode, SiteCluster cluster) {
        long seconds = Long.getLong("dthreads.soak.seconds", 120);
        // JDK RMI schedules a DGC-ack timer per served call and cancels it when the client acks, but
        // its scheduler keeps cancelled tasks queued until their delay (default 5 minutes) passes:
        // at ~6000 calls/s that is ~10 MB of ScheduledFutureTasks, which would hide a real leak of
        // ours. A 2 s ack timeout lets them go quickly.
        String[] flags = {"-Xmx256m", "-Dsun.rmi.dgc.ackTimeout=2000"};
        List<Site> sites = cluster.start(Stream.of("A", "B", "C")
                .map(name -> SiteSpec.app(name, SoakSite.class).javaAgent(JrmpZigzagTest.AGENT).jvmFlags(flags)
                        .systemProperty("dthreads.callbacks", mode))
                .toArray(SiteSpec[]::new));
        RESULTS.put(mode, soak(cluster, sites, mode, seconds));
    }

    /** The modes to run, in order: {@code -Ddthreads.soak.modes} (default {@code takeover,original}). */
    static Stream<String> modes() {
        return Stream.of(System.getProperty("dthreads.soak.modes", "takeover,original").split(","));
    }

    @AfterAll
    static void printBothModes() {
        RESULTS.forEach((mode, line) -> System.out.printf("soak, side by side: %-8s %s%n", mode, line));
    }

    /**
     * The soak on started sites A, B, C of {@code mode} (sites with the steps of {@code example.soak.SoakKit}):
     * warm-up, the run, every check; returns the result line.
     */
    static String soak(SiteCluster cluster, List<Site> sites, String mode, long seconds) {
        return soak(cluster, sites, mode, seconds, true);
    }

    /**
     * As {@link #soak(SiteCluster, List, String, long)}; {@code helpers}: whether the original mode's outgoing calls
     * run on helper threads (JRMP; not JacORB's, whose callers wait for their replies themselves).
     */
    static String soak(SiteCluster cluster, List<Site> sites, String mode, long seconds, boolean helpers) {
        boolean original = mode.equals("original");
        Duration runBound = Duration.ofSeconds(seconds + 120);

        // warm-up, then the baselines
        long warmUpChains = cluster.assertCompletesWithin(runBound,
                () -> runAll(sites, DRIVERS, Math.min(15, seconds)))[0];
        long[] heap = new long[3];
        long[][] threads = new long[3][];
        for (int i = 0; i < 3; i++) {
            heap[i] = Long.parseLong(sites.get(i).run("heap"));
            threads[i] = threads(sites.get(i));
        }
        // not vacuous: in the original mode outgoing calls ran on helpers (idle now; JRMP), in take-over mode none did
        long idleHelpers = Arrays.stream(threads).mapToLong(t -> t[1]).sum();
        assertEquals(original && helpers, idleHelpers > 0, idleHelpers + " helper threads after warm-up");

        long start = System.nanoTime();
        long[] result = cluster.assertCompletesWithin(runBound, () -> runAll(sites, DRIVERS, seconds));
        double elapsed = (System.nanoTime() - start) / 1e9;
        long chains = result[0];
        String line = String.format("%d chains of depth 6 in %.1f s by 64 threads on 3 JVMs: %.0f chains/s, p99 %d ms"
                + " (mid-run: %d threads in the original mode's code)",
                chains, elapsed, chains / elapsed, result[1] / 1000, result[2]);
        System.out.println("soak, " + mode + ": " + line);
        assertEquals(original, result[2] > 0, "threads in the original mode's code mid-run: " + result[2]);

        long allChains = warmUpChains + chains;
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> consumedEverywhere(sites) == allChains);
        for (int i = 0; i < 3; i++) {
            Site site = sites.get(i);
            // first, while the helpers of the run are still idle in their pool (30 s), as they were after warm-up
            long[] now = threads(site);
            System.out.printf("soak, %s: %s has %d live threads (%d helpers) after warm-up, %d (%d) after the run%n",
                    mode, site.name(), threads[i][0], threads[i][1], now[0], now[1]);
            long baseline = threads[i][0];
            assertTrue(now[0] <= baseline + THREAD_SLACK, () -> "threads at " + site.name() + ": " + baseline
                    + " after warm-up, " + now[0] + " after the run\n" + site.threadDump());
            assertEquals(0, now[2], () -> "threads still in the original mode's code at " + site.name()
                    + " after the run\n" + site.threadDump());
            assertEquals("true", site.run("stopConsumer"), "the consumer thread of " + site.name() + " leaves its wait");
            String[] stats = site.run("stats").split(" ");
            assertEquals(2 * allChains, Long.parseLong(stats[0]),
                    "hops at " + site.name() + " (each chain visits every site twice)");
            assertEquals(original ? allChains : 0, Long.parseLong(stats[3]),
                    "second visits of a chain at " + site.name() + " on the thread of its first visit");
            assertEquals("0", site.run("busy"),
                    () -> "no emulated monitor left busy at " + site.name() + ":\n" + site.monitorDump());
            long after = Long.parseLong(site.run("heap"));
            long before = heap[i];
            assertTrue(after <= before * 1.10 + 2_000_000, () -> "heap at " + site.name() + ": " + before
                    + " after warm-up, " + after + " at the end\n" + histogram(site));
            assertFalse(site.stderrTail().contains(NOT_TAKEN), site::stderrTail);
        }
        // Idle helpers end 30 s after their last call; any left then is stuck in a call or was never let go.
        for (Site site : sites) {
            try {
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> threads(site)[1] == 0);
            } catch (ConditionTimeoutException e) {
                fail("helper threads of outgoing calls left at " + site.name() + " 60 s after the run\n"
                        + site.threadDump());
            }
        }
        return line;
    }

    /**
     * Runs the drivers on every site at once; returns {chains, worst p99 in µs, threads inside the original mode's
     * code at all sites half-way through}.
     */
    private static long[] runAll(List<Site> sites, int[] threads, long seconds) throws Exception {
        String[][] results = new String[3][];
        Thread[] runners = new Thread[3];
        Exception[] failure = new Exception[1];
        for (int i = 0; i < 3; i++) {
            int site = i;
            runners[i] = new Thread(() -> {
                try {
                    results[site] = sites.get(site).run(Duration.ofSeconds(seconds + 90), "run",
                            Integer.toString(threads[site]), Long.toString(seconds)).split(" ");
                } catch (Exception e) {
                    failure[0] = e;
                }
            });
            runners[i].start();
        }
        runners[0].join(seconds * 500); // half-way (or a failure)
        long midRun = 0;
        for (Site site : sites) {
            midRun += threads(site)[2];
        }
        for (Thread r : runners) {
            r.join();
        }
        if (failure[0] != null) {
            throw failure[0];
        }
        long chains = 0;
        long p99 = 0;
        for (String[] r : results) {
            if (r[0].equals("STUCK")) {
                fail("a driver did not finish\n" + sites.stream().map(s -> s.name() + ":\n" + s.threadDump())
                        .collect(Collectors.joining("\n")));
            }
            chains += Long.parseLong(r[0]);
            p99 = Math.max(p99, Long.parseLong(r[1]));
        }
        return new long[] {chains, p99, midRun};
    }

    /** {live threads, helper threads, threads inside the original mode's code} at the site. */
    private static long[] threads(Site site) {
        return Arrays.stream(site.run("threads").split(" ")).mapToLong(Long::parseLong).toArray();
    }

    /** The site's largest classes on the heap (jcmd GC.class_histogram), for a failure message. */
    private static String histogram(Site site) {
        try {
            Process jcmd = new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(site.pid()), "GC.class_histogram").redirectErrorStream(true).start();
            jcmd.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
            return new String(jcmd.getInputStream().readAllBytes()).lines().limit(25)
                    .collect(Collectors.joining("\n"));
        } catch (Exception e) {
            return "(no histogram: " + e + ")";
        }
    }

    private static long consumedEverywhere(List<Site> sites) {
        long total = 0;
        for (Site site : sites) {
            total += Long.parseLong(site.run("stats").split(" ")[2]);
        }
        return total;
    }
}
