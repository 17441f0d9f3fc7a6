package org.dthreads.interop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.callbacks.iiop.GlassFishRelaySite;
import example.callbacks.iiop.CorbaRelaySite;
import java.time.Duration;
import java.util.List;
import org.dthreads.junit.DeadlockEvidence;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code -Ddthreads.callbacks=original} over IIOP between separate JVMs (issue 18): CORBA on JacORB and RMI-IIOP on
 * the GlassFish ORB, both with the agent's fast paths. A callback whose class has a thread of this site waiting in
 * an outgoing call runs on that thread, so a zigzag through a native-mode monitor ({@code synchronized (vector)}
 * held across the call and taken again in the callback) completes, and the callback sees the thread's
 * {@code ThreadLocal}s and the same {@code Thread} object, at any depth. A CORBA servant (on either ORB) that asks
 * POA Current and {@code _this_object()} inside the callback gets the callback's request. The controls run the same routes in
 * the default (take-over) mode: the native zigzag deadlocks, and the callback runs on another thread.
 *
 * <p>Trail notation ({@code example.callbacks.iiop.RelayVisits}): {@code SITE[thread,tl]}, thread
 * {@code first|same|other}, tl {@code fresh|seen}; {@code {poa}} when POA Current answers for the visit's request.
 */
@ExtendWith(SitesExtension.class)
class IiopOriginalThreadCallbacksTest {

    private static final String ORIGINAL_TRAIL = "A[first,fresh] > B[first,fresh] > A[same,seen]";
    private static final String TAKE_OVER_TRAIL = "A[first,fresh] > B[first,fresh] > A[other,fresh]";

    @BeforeAll
    static void agentIsBuilt() {
        JrmpZigzagTest.agentIsBuilt();
    }

    private static List<Site> start(SiteCluster cluster, Class<? extends SiteApp> app, boolean original, String... args) {
        SiteSpec[] specs = new SiteSpec[2];
        String[] names = {"A", "B"};
        String[] all = java.util.stream.Stream.concat(java.util.stream.Stream.of("dthreads"), java.util.Arrays.stream(args))
                .toArray(String[]::new);
        for (int i = 0; i < 2; i++) {
            SiteSpec spec = SiteSpec.app(names[i], app).javaAgent(JrmpZigzagTest.AGENT).args(all);
            specs[i] = original ? spec.systemProperty("dthreads.callbacks", "original") : spec;
        }
        return cluster.start(specs);
    }

    private static String route(SiteCluster cluster, List<Site> sites, String route, String mode) {
        return cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> sites.get(0).run("route", route, mode));
    }

    private static void assertVectorZigzagDeadlocks(SiteCluster cluster, List<Site> sites) {
        DeadlockEvidence evidence = cluster.assertDeadlocksWithin(Duration.ofSeconds(4),
                () -> sites.get(0).run("route", "A,B,A", "vector"), "the callback BLOCKED on the Vector at A", e -> {
                    String dump = e.report("A").threadDump();
                    return dump.contains("RelayVisits.visit") && dump.contains("BLOCKED on java.util.Vector");
                });
        String dumpA = evidence.report("A").threadDump();
        // the callback reached A and blocks on the Vector the route's first visit holds
        assertTrue(dumpA.contains("RelayVisits.visit") && dumpA.contains("BLOCKED on java.util.Vector"),
                evidence::toString);
    }

    // JacORB (CORBA, DII/DSI: CorbaRelaySite)

    @Test
    void jacorbAZigzagThroughAVectorsMonitorCompletesOnTheOriginalThread(SiteCluster cluster) {
        assertEquals(ORIGINAL_TRAIL, route(cluster, start(cluster, CorbaRelaySite.class, true), "A,B,A", "vector"));
    }

    @Test
    void jacorbControlInTakeOverModeTheVectorZigzagDeadlocks(SiteCluster cluster) {
        assertVectorZigzagDeadlocks(cluster, start(cluster, CorbaRelaySite.class, false));
    }

    @Test
    void jacorbControlInTakeOverModeTheCallbackRunsOnAnotherThreadWithoutTheThreadLocal(SiteCluster cluster) {
        assertEquals(TAKE_OVER_TRAIL, route(cluster, start(cluster, CorbaRelaySite.class, false), "A,B,A", "none"));
    }

    @Test
    void jacorbANestedZigzagOfDepthFourRunsEveryHopOfASiteOnOneThread(SiteCluster cluster) {
        // B's second visit is a callback of A's class on B: it runs on B's request processor thread that waits in
        // its outgoing call of that class, the one holding B's Vector
        List<Site> sites = start(cluster, CorbaRelaySite.class, true);
        assertEquals("A[first,fresh] > B[first,fresh] > A[same,seen] > B[same,seen] > A[same,seen]",
                route(cluster, sites, "A,B,A,B,A", "vector"));
    }

    @Test
    void jacorbPoaCurrentAndThisObjectAnswerForTheCallbacksRequestOnTheOriginalThread(SiteCluster cluster) {
        // A's first visit is the step's thread (no request); A's callback runs there, B's callback runs on B's
        // request processor thread above its own request; afterwards each answers for its own request again
        List<Site> sites = start(cluster, CorbaRelaySite.class, true);
        assertEquals("A[first,fresh] > B[first,fresh]{poa} > A[same,seen]{poa} > B[same,seen]{poa} > A[same,seen]{poa}",
                route(cluster, sites, "A,B,A,B,A", "poa"));
    }

    @Test
    void jacorbACallbackArrivingAfterTheCallerTimedOutIsServedOnAServerThreadNotLost(SiteCluster cluster) {
        // the orphan rule: A's call to B times out (JacORB's reply timeout, 1 s) while B works (2 s); B's callback
        // then finds no thread of its class waiting at A and is served on a request processor thread, as in
        // take-over mode, instead of hanging
        List<Site> sites = cluster.start(
                SiteSpec.app("A", CorbaRelaySite.class).javaAgent(JrmpZigzagTest.AGENT).args("dthreads")
                        .systemProperty("dthreads.callbacks", "original")
                        .systemProperty("jacorb.connection.client.pending_reply_timeout", "1000"),
                SiteSpec.app("B", CorbaRelaySite.class).javaAgent(JrmpZigzagTest.AGENT).args("dthreads")
                        .systemProperty("dthreads.callbacks", "original"));
        String result = route(cluster, sites, "A,B,A", "late");
        assertTrue(result.startsWith("failed: ") && result.contains("org.omg.CORBA.TIMEOUT"), result);
        await().atMost(Duration.ofSeconds(15)).until(() -> sites.get(0).run("journal").contains("A[other,fresh]"));
        assertEquals("A[first,fresh] ; A[other,fresh]", sites.get(0).run("journal"));
    }

    // GlassFish ORB (RMI-IIOP, dynamic stubs)

    @Test
    void glassFishAZigzagThroughAVectorsMonitorCompletesOnTheOriginalThread(SiteCluster cluster) {
        assertEquals(ORIGINAL_TRAIL, route(cluster, start(cluster, GlassFishRelaySite.class, true), "A,B,A", "vector"));
    }

    @Test
    void glassFishPoaCurrentAndThisObjectAnswerForTheCallbacksRequestOnTheOriginalThread(SiteCluster cluster) {
        // CORBA (DII/DSI) on the GlassFish ORB: the object adapter's invocation info is pushed and popped within
        // the dispatch the original thread runs
        List<Site> sites = start(cluster, CorbaRelaySite.class, true, "glassfish");
        assertEquals("A[first,fresh] > B[first,fresh]{poa} > A[same,seen]{poa} > B[same,seen]{poa} > A[same,seen]{poa}",
                route(cluster, sites, "A,B,A,B,A", "poa"));
    }

    @Test
    void glassFishControlInTakeOverModeTheVectorZigzagDeadlocks(SiteCluster cluster) {
        assertVectorZigzagDeadlocks(cluster, start(cluster, GlassFishRelaySite.class, false));
    }

    @Test
    void glassFishTheCallbackSeesTheThreadLocalAndTheSameThreadObject(SiteCluster cluster) {
        assertEquals(ORIGINAL_TRAIL, route(cluster, start(cluster, GlassFishRelaySite.class, true), "A,B,A", "none"));
    }

    @Test
    void glassFishControlInTakeOverModeTheCallbackRunsOnAnotherThreadWithoutTheThreadLocal(SiteCluster cluster) {
        assertEquals(TAKE_OVER_TRAIL, route(cluster, start(cluster, GlassFishRelaySite.class, false), "A,B,A", "none"));
    }

    @Test
    void glassFishACallbackArrivingAfterTheCallerTimedOutIsServedOnAServerThreadNotLost(SiteCluster cluster) {
        // the orphan rule on the GlassFish ORB: the reply timeout (1 s) fires on the helper thread; the ORB's
        // failure handling then runs on the caller, and B's late callback is served on a worker thread at A
        List<Site> sites = cluster.start(
                SiteSpec.app("A", GlassFishRelaySite.class).javaAgent(JrmpZigzagTest.AGENT).args("dthreads")
                        .systemProperty("dthreads.callbacks", "original")
                        .systemProperty("relay.responseTimeoutMillis", "1000"),
                SiteSpec.app("B", GlassFishRelaySite.class).javaAgent(JrmpZigzagTest.AGENT).args("dthreads")
                        .systemProperty("dthreads.callbacks", "original"));
        String result = route(cluster, sites, "A,B,A", "late");
        assertTrue(result.startsWith("failed: ") && result.contains("COMM_FAILURE"), result);
        await().atMost(Duration.ofSeconds(15)).until(() -> sites.get(0).run("journal").contains("A[other,fresh]"));
        assertEquals("A[first,fresh] ; A[other,fresh]", sites.get(0).run("journal"));
    }

    @Test
    void glassFishANestedZigzagOfDepthFourRunsEveryHopOfASiteOnOneThread(SiteCluster cluster) {
        List<Site> sites = start(cluster, GlassFishRelaySite.class, true);
        assertEquals("A[first,fresh] > B[first,fresh] > A[same,seen] > B[same,seen] > A[same,seen]",
                route(cluster, sites, "A,B,A,B,A", "vector"));
    }
}
