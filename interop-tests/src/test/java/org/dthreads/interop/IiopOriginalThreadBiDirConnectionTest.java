package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.callbacks.iiop.CorbaBiDirSite;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.dthreads.junit.DeadlockEvidence;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Callbacks over a real, reused BiDir GIOP connection on JacORB (issue 18): both sites set the {@code BiDirPolicy}
 * {@code BOTH} on the POA of their servant, as JacORB's {@code demo/bidir} does ({@link CorbaBiDirSite}), so B calls A
 * back over the connection A opened to B: A accepts no connection, B opens none (JacORB's own connection events,
 * {@code jacorb.net.tcp_listener}). {@link IiopOriginalThreadBiDirTest} covers the BiDir interceptors without the
 * policy (a new connection for the callback). In original mode the callback on the shared connection runs on the
 * original thread (same {@code Thread}, its {@code ThreadLocal}), also nested to depth 2, and the zigzag through a
 * native-mode monitor ({@code Vector}) completes; in take-over mode it deadlocks. The control without the policy
 * shows that the count sees a callback's new connection.
 */
@ExtendWith(SitesExtension.class)
class IiopOriginalThreadBiDirConnectionTest {

    /** One connection, A to B, carries the calls and the callbacks. */
    private static final String SHARED_A = "opened 1, accepted 0";
    private static final String SHARED_B = "opened 0, accepted 1";
    private static final Duration BOUND = Duration.ofSeconds(30);

    @BeforeAll
    static void agentIsBuilt() {
        JrmpZigzagTest.agentIsBuilt();
    }

    private static List<Site> start(SiteCluster cluster, boolean original, boolean bidir) {
        SiteSpec[] specs = new SiteSpec[2];
        String[] names = {"A", "B"};
        for (int i = 0; i < 2; i++) {
            SiteSpec spec = SiteSpec.app(names[i], CorbaBiDirSite.class).javaAgent(JrmpZigzagTest.AGENT)
                    .args(bidir ? "bidir" : "plain");
            specs[i] = original ? spec.systemProperty("dthreads.callbacks", "original") : spec;
        }
        return cluster.start(specs);
    }

    private static String route(SiteCluster cluster, List<Site> sites, String route, String mode) {
        return cluster.assertCompletesWithin(BOUND, () -> sites.get(0).run("route", route, mode));
    }

    private static void assertOneSharedConnection(List<Site> sites) {
        assertEquals(SHARED_A, sites.get(0).run("connections"), "A: the callbacks came over A's own connection");
        assertEquals(SHARED_B, sites.get(1).run("connections"), "B: the callbacks went over A's connection");
    }

    @Test
    void aZigzagThroughAVectorsMonitorOverTheSharedConnectionCompletesOnTheOriginalThread(SiteCluster cluster) {
        List<Site> sites = start(cluster, true, true);
        assertEquals("A[first,fresh] > B[first,fresh] > A[same,seen]", route(cluster, sites, "A,B,A", "vector"));
        assertOneSharedConnection(sites);
    }

    @Test
    void aNestedZigzagOfDepthTwoOverTheSharedConnectionRunsEveryHopOfASiteOnOneThread(SiteCluster cluster) {
        // B's second visit is a callback of A's class on B, over the connection A opened, run by B's request
        // processor thread that holds B's Vector and waits in its own callback to A
        List<Site> sites = start(cluster, true, true);
        assertEquals("A[first,fresh] > B[first,fresh] > A[same,seen] > B[same,seen] > A[same,seen]",
                route(cluster, sites, "A,B,A,B,A", "vector"));
        assertOneSharedConnection(sites);
    }

    @Test
    void controlInTakeOverModeTheCallbackOverTheSharedConnectionRunsOnAnotherThread(SiteCluster cluster) {
        List<Site> sites = start(cluster, false, true);
        assertEquals("A[first,fresh] > B[first,fresh] > A[other,fresh]", route(cluster, sites, "A,B,A", "none"));
        assertOneSharedConnection(sites);
    }

    @Test
    void controlInTakeOverModeTheVectorZigzagOverTheSharedConnectionDeadlocks(SiteCluster cluster) {
        List<Site> sites = start(cluster, false, true);
        AtomicReference<String> connections = new AtomicReference<>();
        DeadlockEvidence evidence = cluster.assertDeadlocksWithin(Duration.ofSeconds(4),
                () -> sites.get(0).run("route", "A,B,A", "vector"), "the callback BLOCKED on the Vector at A", e -> {
                    String dump = e.report("A").threadDump();
                    if (!(dump.contains("RelayVisits.visit") && dump.contains("BLOCKED on java.util.Vector"))) {
                        return false;
                    }
                    connections.set(sites.get(0).run("connections") + " / " + sites.get(1).run("connections"));
                    return true;
                });
        assertTrue(evidence.report("A").threadDump().contains("BLOCKED on java.util.Vector"), evidence::toString);
        assertEquals(SHARED_A + " / " + SHARED_B, connections.get(), "the stuck callback came over A's connection");
    }

    @Test
    void controlWithoutTheBiDirPolicyTheCallbackComesOverANewConnection(SiteCluster cluster) {
        // the count's control: the interceptors alone (IiopOriginalThreadBiDirTest's set-up) do not share the connection
        List<Site> sites = start(cluster, true, false);
        assertEquals("A[first,fresh] > B[first,fresh] > A[same,seen]", route(cluster, sites, "A,B,A", "vector"));
        assertEquals("opened 1, accepted 1", sites.get(0).run("connections"));
        assertEquals("opened 1, accepted 1", sites.get(1).run("connections"));
    }
}
