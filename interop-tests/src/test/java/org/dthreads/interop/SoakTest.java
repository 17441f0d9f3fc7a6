package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.soak.SoakSite;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Load and soak (profile {@code soak}, not the default build): 64 driver threads across 3 JVMs run
 * zigzag chains of depth 6 (every site visited twice, its monitor re-entered by the chain) ending in
 * a wait/notify hand-off, for {@code -Ddthreads.soak.seconds} (default 120). Checks: no chain stuck,
 * exact operation counts at every site, every token handed off and consumed, no emulated monitor
 * left busy, heap after a full GC within 10% of its value after warm-up. Prints throughput and p99.
 *
 * <pre>./mvnw -B -Psoak -pl interop-tests -am verify -Dtest=SoakTest -Dsurefire.failIfNoSpecifiedTests=false</pre>
 */
@Tag("soak")
@ExtendWith(SitesExtension.class)
class SoakTest {

    @Test
    void sixtyFourThreadsAcrossThreeJvmsForTwoMinutes(SiteCluster cluster) {
        long seconds = Long.getLong("dthreads.soak.seconds", 120);
        // JDK RMI schedules a DGC-ack timer per served call and cancels it when the client acks, but
        // its scheduler keeps cancelled tasks queued until their delay (default 5 minutes) passes:
        // at ~6000 calls/s that is ~10 MB of ScheduledFutureTasks, which would hide a real leak of
        // ours. A 2 s ack timeout lets them go quickly.
        String[] flags = {"-Xmx256m", "-Dsun.rmi.dgc.ackTimeout=2000"};
        List<Site> sites = cluster.start(
                SiteSpec.app("A", SoakSite.class).javaAgent(JrmpZigzagTest.AGENT).jvmFlags(flags),
                SiteSpec.app("B", SoakSite.class).javaAgent(JrmpZigzagTest.AGENT).jvmFlags(flags),
                SiteSpec.app("C", SoakSite.class).javaAgent(JrmpZigzagTest.AGENT).jvmFlags(flags));
        Duration runBound = Duration.ofSeconds(seconds + 120);

        // warm-up, then the heap baseline
        long warmUpChains = cluster.assertCompletesWithin(runBound,
                () -> runAll(sites, new int[] {8, 8, 8}, Math.min(15, seconds)))[0];
        long[] baseline = new long[3];
        for (int i = 0; i < 3; i++) {
            baseline[i] = Long.parseLong(sites.get(i).run("heap"));
        }

        long start = System.nanoTime();
        long[] result = cluster.assertCompletesWithin(runBound, () -> runAll(sites, new int[] {22, 21, 21}, seconds));
        double elapsed = (System.nanoTime() - start) / 1e9;
        long chains = result[0];
        System.out.printf("soak: %d chains of depth 6 in %.1f s by 64 threads on 3 JVMs: %.0f chains/s, p99 %d us%n",
                chains, elapsed, chains / elapsed, result[1]);

        long allChains = warmUpChains + chains;
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> consumedEverywhere(sites) == allChains);
        for (Site site : sites) {
            assertEquals("true", site.run("stopConsumer"), "the consumer thread of " + site.name() + " leaves its wait");
            String[] stats = site.run("stats").split(" ");
            assertEquals(2 * allChains, Long.parseLong(stats[0]), "hops at " + site.name() + " (each chain visits every site twice)");
            assertEquals("0", site.run("busy"), "no emulated monitor left busy at " + site.name() + ":\n" + site.monitorDump());
        }
        for (int i = 0; i < 3; i++) {
            long after = Long.parseLong(sites.get(i).run("heap"));
            assertTrue(after <= baseline[i] * 1.10 + 2_000_000,
                    "heap at " + sites.get(i).name() + ": " + baseline[i] + " after warm-up, " + after + " at the end\n"
                            + histogram(sites.get(i)));
        }
    }

    /** Runs the drivers on every site at once; returns {chains, worst p99 in µs}. */
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
        for (Thread r : runners) {
            r.join();
        }
        if (failure[0] != null) {
            throw failure[0];
        }
        long chains = 0;
        long p99 = 0;
        for (String[] r : results) {
            assertNotEquals("STUCK", r[0], "a driver did not finish");
            chains += Long.parseLong(r[0]);
            p99 = Math.max(p99, Long.parseLong(r[1]));
        }
        return new long[] {chains, p99};
    }

    /** The site's largest classes on the heap (jcmd GC.class_histogram), for a failure message. */
    private static String histogram(Site site) {
        try {
            Process jcmd = new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(site.pid()), "GC.class_histogram").redirectErrorStream(true).start();
            jcmd.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
            return new String(jcmd.getInputStream().readAllBytes()).lines().limit(25)
                    .collect(java.util.stream.Collectors.joining("\n"));
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
