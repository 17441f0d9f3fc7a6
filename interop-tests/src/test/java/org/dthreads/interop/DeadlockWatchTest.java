package org.dthreads.interop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.deadlock.rmi.LockSite;
import example.zigzag.rmi.HopSite;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.dthreads.ThreadClass;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The automatic deadlock check ({@code -Ddthreads.deadlock.detect}, issue 17 item 4) and the JFR events under the
 * agent (item 5), with real sites: a distributed AB-BA over JRMP, one on remote monitors through stubs and a
 * three-site cycle mixing JRMP and JacORB are each logged by every site involved within the threshold + 5 s; a
 * zigzag held mid-chain with classes queued on its monitors, far longer than the threshold, is never reported.
 * A site recording with {@code -XX:StartFlightRecording} has the {@code org.dthreads} events in its recording.
 */
@ExtendWith(SitesExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DeadlockWatchTest {
    static final Path AGENT = DeadlockDetectionTest.AGENT;
    static final String DETECTED = "dthreads: deadlock detected across sites";
    static final Duration THRESHOLD = Duration.ofSeconds(1);

    @TempDir
    Path dir;

    static SiteSpec site(String name, String... args) {
        return SiteSpec.app(name, LockSite.class).javaAgent(AGENT).args(args)
                .systemProperty("dthreads.deadlock.detect", THRESHOLD.toMillis() + "ms");
    }

    @Test
    void twoJvmAbBaOverJrmpIsLoggedByBothSitesAndRecordedByJfr(SiteCluster cluster) throws Exception {
        Path jfr = dir.resolve("a.jfr");
        List<Site> s = cluster.start(site("A").jvmFlags("-XX:StartFlightRecording:filename=" + jfr), site("B"));
        Site a = s.get(0);
        Site b = s.get(1);
        DeadlockDetectionTest.inBackground("abba-A", () -> a.run("abba", "B"));
        DeadlockDetectionTest.inBackground("abba-B", () -> b.run("abba", "A"));
        assertEquals("held", a.run("held"));
        assertEquals("held", b.run("held"));
        a.run("go");
        b.run("go");
        long goAt = System.nanoTime();
        String cycle = awaitWholeCycleLogged(s);
        System.out.println("JRMP AB-BA logged whole by both sites " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime()
                - goAt) + " ms after go; A:\n" + detectedPart(a));
        assertEquals(2, count(cycle, "waiting to lock <0x"), cycle);
        assertEquals(2, count(cycle, "(a example.deadlock.rmi.LockSite$Node) [emulated monitor]"), cycle);
        assertEquals(2, count(cycle, "at example.deadlock.rmi.LockSite$Server.lockYours(LockSite.java"), cycle);
        for (Site site : s) {
            assertEquals(1, count(site.stderrTail(), DETECTED), "logged once: " + site.stderrTail());
        }

        List<RecordedEvent> events = jfrDump(a, "a-dump.jfr");
        assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals("org.dthreads.Deadlock")
                && e.getString("cycle").contains("LockSite$Node")), names(events));
    }

    /** The site's recording so far ({@code jcmd PID JFR.dump}), read back. */
    private List<RecordedEvent> jfrDump(Site site, String name) throws Exception {
        Path dump = dir.resolve(name);
        Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(site.pid()), "JFR.dump", "filename=" + dump).redirectErrorStream(true).start();
        String out = new String(jcmd.getInputStream().readAllBytes());
        assertTrue(jcmd.waitFor(30, TimeUnit.SECONDS) && jcmd.exitValue() == 0 && Files.exists(dump), out);
        return RecordingFile.readAllEvents(dump);
    }

    @Test
    void aHungPeerCostsAProbeItsBudgetThenTheCycleIsLoggedWholeOnceItAnswers(SiteCluster cluster) throws Exception {
        List<Site> s = cluster.start(site("A"), site("B"));
        Site a = s.get(0);
        Site b = s.get(1);
        DeadlockDetectionTest.inBackground("abba-A", () -> a.run("abba", "B"));
        DeadlockDetectionTest.inBackground("abba-B", () -> b.run("abba", "A"));
        assertEquals("held", a.run("held"));
        assertEquals("held", b.run("held"));
        a.run("go");
        b.run("go");
        java.util.regex.Pattern queued = java.util.regex.Pattern.compile("entering: \\[\\p{XDigit}");
        await().atMost(Duration.ofSeconds(5)).until(() -> queued.matcher(a.monitorDump()).find()); // the cycle formed
        signal("STOP", b);
        try {
            awaitInLog(List.of(a), "did not answer a deadlock probe within");
            assertFalse(a.stderrTail().contains("deadlock detected"), a.stderrTail());
        } finally {
            signal("CONT", b);
        }
        awaitWholeCycleLogged(s); // the next probe, a threshold later, gets its answer
    }

    /** {@code kill -SIGNAL pid}: a hung JVM is a stopped one (its sockets accept, nothing answers). */
    private static void signal(String name, Site site) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(site.pid())).inheritIO().start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -" + name);
    }

    /** Some site's log has {@code part} within the threshold + 5 s, else every site's dumps are printed. */
    private static void awaitInLog(List<Site> sites, String part) {
        try {
            await().atMost(THRESHOLD.plusSeconds(5)).pollInterval(Duration.ofMillis(50))
                    .until(() -> sites.stream().anyMatch(site -> site.stderrTail().contains(part)));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            printDumps(sites);
            throw e;
        }
    }

    private static void printDumps(List<Site> sites) {
        for (Site site : sites) {
            System.out.println("=== site " + site.name() + " (pid " + site.pid() + ") threads:\n" + site.threadDump()
                    + "\n=== its monitors:\n" + site.monitorDump() + "\n=== its log:\n" + site.stderrTail());
        }
    }

    @Test
    void twoJvmAbBaOnRemoteMonitorsThroughStubsIsLoggedByBothSites(SiteCluster cluster) throws Exception {
        List<Site> s = cluster.start(site("A"), site("B"));
        Site a = s.get(0);
        Site b = s.get(1);
        DeadlockDetectionTest.inBackground("stub-abba-A", () -> a.run("stubAbba", "B"));
        DeadlockDetectionTest.inBackground("stub-abba-B", () -> b.run("stubAbba", "A"));
        assertEquals("held", a.run("held"));
        assertEquals("held", b.run("held"));
        a.run("go");
        b.run("go");
        String cycle = awaitWholeCycleLogged(s);
        System.out.println("stub AB-BA, B:\n" + detectedPart(b));
        assertEquals(2, count(cycle, "(a example.deadlock.rmi.LockSite$Server) [emulated monitor]"), cycle);
    }

    @Test
    void threeSiteCycleMixingJrmpAndJacorbIsLoggedByEverySite(SiteCluster cluster) throws Exception {
        List<Site> s = cluster.start(site("A", "corba", "dthreads"), site("B", "corba", "dthreads"),
                site("C", "corba", "dthreads"));
        String[] next = {"rmi:B", "corba:C", "rmi:A"}; // A -JRMP-> B -IIOP-> C -JRMP-> A
        for (int i = 0; i < 3; i++) {
            Site site = s.get(i);
            String peer = next[i];
            DeadlockDetectionTest.inBackground("abba-" + i, () -> site.run("abba", peer));
        }
        for (Site site : s) {
            assertEquals("held", site.run("held"));
        }
        s.forEach(site -> site.run("go"));
        long goAt = System.nanoTime();
        String cycle = awaitWholeCycleLogged(s);
        System.out.println("three sites logged the whole cycle " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime()
                - goAt) + " ms after go; A:\n" + detectedPart(s.get(0)));
        assertEquals(3, count(cycle, "(a example.deadlock.rmi.LockSite$Node) [emulated monitor]"), cycle);
        assertTrue(cycle.contains("LockSite$CorbaEntry.invoke"), cycle); // the IIOP edge, at C, logged by all three
        for (Site site : s) {
            assertEquals(1, count(site.stderrTail(), DETECTED), "logged once: " + site.stderrTail());
        }
    }

    @Test
    void aZigzagHeldMidChainWithClassesQueuedIsNeverReportedAndItsEntriesAreInJfr(SiteCluster cluster) throws Exception {
        Path jfr = dir.resolve("zigzag-a.jfr");
        List<Site> s = cluster.start(site("A").jvmFlags("-XX:StartFlightRecording:filename=" + jfr), site("B"));
        Site a = s.get(0);
        Site b = s.get(1);
        AtomicReference<String> trail = new AtomicReference<>();
        DeadlockDetectionTest.inBackground("zigzag", () -> trail.set(a.run("zigzag", "B", "4")));
        assertEquals("paused", a.run("paused"));
        AtomicReference<String> contendA = new AtomicReference<>();
        AtomicReference<String> contendB = new AtomicReference<>();
        DeadlockDetectionTest.inBackground("contend-A", () -> contendA.set(a.run("contend")));
        DeadlockDetectionTest.inBackground("contend-B", () -> contendB.set(b.run("contend")));
        java.util.regex.Pattern queued = java.util.regex.Pattern.compile("entering: \\[\\p{XDigit}");
        await().atMost(Duration.ofSeconds(10)).until(() -> queued.matcher(a.monitorDump()).find()
                && queued.matcher(b.monitorDump()).find());
        TimeUnit.MILLISECONDS.sleep(THRESHOLD.multipliedBy(4).toMillis()); // probes ran: edges older than the threshold
        for (Site site : s) {
            assertFalse(site.stderrTail().contains("deadlock detected"), site.stderrTail());
        }
        a.run("release");
        await().atMost(Duration.ofSeconds(10)).until(() -> trail.get() != null && contendA.get() != null
                && contendB.get() != null);
        assertEquals("B > A > B > A", trail.get());

        // the contender at A blocked for seconds on the node the zigzag held: the JVM's own event cannot see it
        List<RecordedEvent> events = jfrDump(a, "zigzag-dump.jfr");
        RecordedEvent enter = events.stream().filter(e -> e.getEventType().getName().equals("org.dthreads.MonitorEnter")
                && e.getClass("monitorClass").getName().equals("example.deadlock.rmi.LockSite$Node")
                && e.getThread().getJavaName().startsWith("dthreads-step-contend"))
                .findFirst().orElseThrow(() -> new AssertionError("no MonitorEnter on a Node in " + events.size()
                        + " events: " + names(events)));
        System.out.println("site A's recording:\n" + enter);
        assertTrue(ThreadClass.isValid(enter.getLong("threadClass")), enter.toString());
        assertTrue(ThreadClass.isValid(enter.getLong("ownerClass")), enter.toString());
        assertTrue(enter.getLong("threadClass") != enter.getLong("ownerClass"), enter.toString());
        assertTrue(enter.getDuration().compareTo(THRESHOLD) >= 0, enter.toString());
    }

    @Test
    void runningZigzagsQueuedBehindEachOtherAreNeverReported(SiteCluster cluster) throws Exception {
        List<Site> s = cluster.start(SiteSpec.app("A", HopSite.class).javaAgent(AGENT)
                        .systemProperty("dthreads.deadlock.detect", "100ms"),
                SiteSpec.app("B", HopSite.class).javaAgent(AGENT).systemProperty("dthreads.deadlock.detect", "100ms"));
        zigzagWhileTheWatchLooks(s, "A,B,A,B,A,B,A,B,A,B,A");
    }

    @Test
    void runningZigzagsMixingJrmpAndJacorbQueuedBehindEachOtherAreNeverReported(SiteCluster cluster)
            throws Exception {
        List<Site> s = cluster.start(List.of("A", "B", "C").stream()
                .map(name -> SiteSpec.app(name, example.zigzag.mixed.MixedHopSite.class).javaAgent(AGENT)
                        .args("dthreads").systemProperty("dthreads.deadlock.detect", "200ms"))
                .toArray(SiteSpec[]::new));
        zigzagWhileTheWatchLooks(s, "A,rmi:B,corba:C,rmi:A,corba:B,rmi:A");
    }

    /** Three drivers run {@code route} from the first site for 4 s; no site may report a deadlock. */
    private static void zigzagWhileTheWatchLooks(List<Site> s, String route) throws InterruptedException {
        java.util.concurrent.atomic.AtomicInteger routes = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        for (int driver = 0; driver < 3; driver++) { // classes queue on A's node behind the one that is away
            DeadlockDetectionTest.inBackground("zigzags-" + driver, () -> {
                while (!stop.get()) {
                    s.get(0).run("route", route);
                    routes.incrementAndGet();
                }
            });
        }
        try {
            TimeUnit.SECONDS.sleep(4); // many rounds of the watch: edges older than 100 ms are probed
        } finally {
            stop.set(true);
        }
        assertTrue(routes.get() > 0, "the zigzags ran meanwhile");
        for (Site site : s) {
            assertFalse(site.stderrTail().contains("deadlock detected"), site.stderrTail());
        }
        System.out.println(routes.get() + " zigzags " + route + " by 3 drivers, no deadlock reported");
    }

    /**
     * Every site logs the whole cycle (an edge at every site: its pid) within the threshold + 5 s, the same text at
     * each; else every site's thread and monitor dump and log are printed before the failure.
     *
     * @return the cycle as every site logged it
     */
    private static String awaitWholeCycleLogged(List<Site> sites) {
        try {
            await().atMost(THRESHOLD.plusSeconds(5)).pollInterval(Duration.ofMillis(50))
                    .until(() -> sites.stream().allMatch(site -> {
                        String cycle = loggedCycle(site);
                        return sites.stream().allMatch(other -> cycle.contains("(pid " + other.pid() + " on "));
                    }));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            printDumps(sites);
            throw e;
        }
        String cycle = loggedCycle(sites.get(0));
        assertTrue(cycle.contains("a cycle of " + sites.size() + " thread classes across " + sites.size() + " sites"),
                cycle);
        for (Site site : sites) {
            assertEquals(cycle, loggedCycle(site), "every site logs the same whole cycle");
        }
        return cycle;
    }

    /** The cycle a site logged: from "Found one dthreads deadlock" to the last edge line; empty if none yet. */
    private static String loggedCycle(Site site) {
        String part = detectedPart(site);
        int from = part.indexOf("Found one dthreads deadlock");
        if (!part.contains(DETECTED) || from < 0) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        for (String line : part.substring(from).split("\n")) {
            if (sb.length() > 0 && !line.startsWith(" ")) {
                break;
            }
            sb.append(line).append('\n');
        }
        return sb.toString();
    }

    private static String detectedPart(Site site) {
        String tail = site.stderrTail();
        int at = tail.lastIndexOf(DETECTED);
        return at < 0 ? tail : tail.substring(Math.max(0, tail.lastIndexOf('\n', at)));
    }

    private static String names(List<RecordedEvent> events) {
        return events.stream().map(e -> e.getEventType().getName()).filter(n -> n.startsWith("org.dthreads"))
                .distinct().toList().toString();
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
