package org.dthreads.interop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.callbacks.RelaySite;
import java.time.Duration;
import java.util.List;
import org.dthreads.junit.DeadlockEvidence;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code -Ddthreads.callbacks=original} over JRMP between separate JVMs (issue 18): a callback whose class has a
 * thread of this site waiting in an outgoing call runs on that thread, so a zigzag through a native-mode monitor
 * completes, and the callback sees the thread's {@code ThreadLocal}s and the same {@code Thread} object. The
 * controls run the same routes in the default (take-over) mode: the native zigzags deadlock there, and the
 * callback runs on another thread.
 *
 * <p>Trail notation ({@link RelaySite}): {@code SITE[thread,tl]}, thread {@code first|same|other}, tl
 * {@code fresh|seen}.
 */
@ExtendWith(SitesExtension.class)
class OriginalThreadCallbacksTest {

    @BeforeAll
    static void agentIsBuilt() {
        JrmpZigzagTest.agentIsBuilt();
    }

    static List<Site> start(SiteCluster cluster, boolean original, String... names) {
        SiteSpec[] specs = new SiteSpec[names.length];
        for (int i = 0; i < names.length; i++) {
            SiteSpec spec = SiteSpec.app(names[i], RelaySite.class).javaAgent(JrmpZigzagTest.AGENT);
            specs[i] = original ? spec.systemProperty("dthreads.callbacks", "original") : spec;
        }
        return cluster.start(specs);
    }

    @Test
    void aZigzagThroughAVectorsMonitorCompletesOnTheOriginalThread(SiteCluster cluster) {
        List<Site> sites = start(cluster, true, "A", "B");
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("route", "A,B,A", "vector"));
        assertEquals("A[first,fresh] > B[first,fresh] > A[same,seen]", trail);
    }

    @Test
    void controlInTakeOverModeTheVectorZigzagDeadlocks(SiteCluster cluster) {
        List<Site> sites = start(cluster, false, "A", "B");
        DeadlockEvidence evidence = cluster.assertDeadlocksWithin(Duration.ofSeconds(3),
                () -> sites.get(0).run("route", "A,B,A", "vector"), "A in RelaySite$Node.hop, on a Vector",
                e -> dumpA(e).contains("RelaySite$Node.hop") && dumpA(e).contains("java.util.Vector"));
        String dumpA = dumpA(evidence);
        assertTrue(dumpA.contains("RelaySite$Node.hop") && dumpA.contains("java.util.Vector"), evidence::toString);
    }

    @Test
    void aZigzagThroughSystemOutCompletesOnTheOriginalThread(SiteCluster cluster) {
        List<Site> sites = start(cluster, true, "A", "B");
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("route", "A,B,A", "out"));
        assertEquals("A[first,fresh] > B[first,fresh] > A[same,seen]", trail);
    }

    @Test
    void controlInTakeOverModeTheSystemOutZigzagDeadlocks(SiteCluster cluster) {
        List<Site> sites = start(cluster, false, "A", "B");
        DeadlockEvidence evidence = cluster.assertDeadlocksWithin(Duration.ofSeconds(3),
                () -> sites.get(0).run("route", "A,B,A", "out"), "A in RelaySite$Node.hop",
                e -> dumpA(e).contains("RelaySite$Node.hop"));
        assertTrue(dumpA(evidence).contains("RelaySite$Node.hop"), evidence::toString);
    }

    @Test
    void theCallbackSeesTheThreadLocalAndTheSameThreadObject(SiteCluster cluster) {
        List<Site> sites = start(cluster, true, "A", "B");
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("route", "A,B,A", "none"));
        assertEquals("A[first,fresh] > B[first,fresh] > A[same,seen]", trail);
    }

    @Test
    void controlInTakeOverModeTheCallbackRunsOnAnotherThreadWithoutTheThreadLocal(SiteCluster cluster) {
        List<Site> sites = start(cluster, false, "A", "B");
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("route", "A,B,A", "none"));
        assertEquals("A[first,fresh] > B[first,fresh] > A[other,fresh]", trail);
    }

    @Test
    void aNestedZigzagOfDepthThreeRunsEveryHopOfASiteOnOneThread(SiteCluster cluster) {
        List<Site> sites = start(cluster, true, "A", "B");
        // B's second visit is a callback of A's class on B: it runs on B's server thread that waits in its
        // outgoing call of that class, the one holding B's Vector
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(20),
                () -> sites.get(0).run("route", "A,B,A,B,A", "vector"));
        assertEquals("A[first,fresh] > B[first,fresh] > A[same,seen] > B[same,seen] > A[same,seen]", trail);
    }

    @Test
    void aCallbackThatWaitsOnAnEmulatedMonitorIsNotifiedAndCompletes(SiteCluster cluster) {
        List<Site> sites = start(cluster, true, "A", "B");
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("route", "A,B,A,B", "wait"));
        assertEquals("A[first,fresh] > B[first,fresh] > A[same,seen] > B[same,seen]", trail);
    }

    @Test
    void aCallbackArrivingAfterTheCallerTimedOutIsServedOnAServerThreadNotLost(SiteCluster cluster) {
        // the orphan rule: A's call to B times out (1 s) while B works (2 s); B's callback then finds no thread of
        // its class waiting at A and is served on A's server thread, as in take-over mode, instead of hanging
        List<Site> sites = cluster.start(
                SiteSpec.app("A", RelaySite.class).javaAgent(JrmpZigzagTest.AGENT).systemProperty("dthreads.callbacks", "original")
                        .systemProperty("sun.rmi.transport.tcp.responseTimeout", "1000"),
                SiteSpec.app("B", RelaySite.class).javaAgent(JrmpZigzagTest.AGENT).systemProperty("dthreads.callbacks", "original"));
        String result = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("route", "A,B,A", "late"));
        assertTrue(result.startsWith("failed: java.rmi.") && result.contains("SocketTimeoutException"), result);
        await().atMost(Duration.ofSeconds(15)).until(() -> sites.get(0).run("journal").contains("A[other,fresh]"));
        assertEquals("A[first,fresh] ; A[other,fresh]", sites.get(0).run("journal"));
    }

    @Test
    void aLocalAbbaOnNativeMonitorsReachedThroughACallbackIsSeenByTheJvm(SiteCluster cluster) {
        List<Site> sites = start(cluster, true, "A", "B");
        // the ABBA forms once the callback reaches A: on a starved machine after the bound, so A's JVM check is read
        // until it names both threads (a reading made before then says "none")
        DeadlockEvidence evidence = cluster.assertDeadlocksWithin(Duration.ofSeconds(3),
                () -> sites.get(0).run("route", "A,B,A", "abba"), "A's JVM deadlock check naming relay-abba-other and"
                        + " the route's thread", OriginalThreadCallbacksTest::jvmSeesTheAbba);
        String check = jvmDeadlockCheck(dumpA(evidence));
        assertTrue(jvmSeesTheAbba(evidence), check);
    }

    @Test
    void controlInTakeOverModeTheJvmCannotSeeThatDeadlock(SiteCluster cluster) {
        List<Site> sites = start(cluster, false, "A", "B");
        // read once both threads of the ABBA are in place, BLOCKED (relay-abba-other on the journal, the callback's
        // server thread on the ledger): before then "none" would prove nothing
        DeadlockEvidence evidence = cluster.assertDeadlocksWithin(Duration.ofSeconds(3),
                () -> sites.get(0).run("route", "A,B,A", "abba"), "relay-abba-other and the callback BLOCKED at A",
                e -> e.report("A").blockedThreadCount() >= 2 && dumpA(e).lines()
                        .anyMatch(l -> l.startsWith("\"relay-abba-other\"") && l.contains(" BLOCKED")));
        String check = jvmDeadlockCheck(dumpA(evidence));
        assertTrue(check.contains(": none"), check);
    }

    private static String dumpA(DeadlockEvidence e) {
        return e.report("A").threadDump();
    }

    /** A's JVM deadlock check names both threads of the local ABBA. */
    private static boolean jvmSeesTheAbba(DeadlockEvidence e) {
        String check = jvmDeadlockCheck(dumpA(e));
        return check.contains("\"relay-abba-other\"") && check.contains("\"dthreads-step-route");
    }

    /** The line of the kit's thread dump that reports {@code ThreadMXBean.findDeadlockedThreads()}. */
    private static String jvmDeadlockCheck(String threadDump) {
        return threadDump.lines().filter(l -> l.contains("findDeadlockedThreads")).findFirst().orElse("no check in: " + threadDump);
    }
}
