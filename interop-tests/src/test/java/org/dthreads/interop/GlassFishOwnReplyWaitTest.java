package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.callbacks.iiop.GlassFishRelaySite;
import java.time.Duration;
import java.util.List;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code -Ddthreads.callbacks=original} over the GlassFish ORB with the agent (issue 18): the caller waits for its
 * reply in the ORB's own reply wait ({@code ResponseWaitingRoomImpl.waitForResponse}, patched), which runs the
 * callbacks of its class, so no helper thread ({@code dthreads-call-N}) is started, for plain calls or callbacks;
 * and the ORB's reply timeout ({@code ORBWaitForResponseTimeout}) still counts from the first wait, however many
 * callbacks the caller runs meanwhile.
 */
@ExtendWith(SitesExtension.class)
class GlassFishOwnReplyWaitTest {

    @BeforeAll
    static void agentIsBuilt() {
        JrmpZigzagTest.agentIsBuilt();
    }

    private static SiteSpec site(String name) {
        return SiteSpec.app(name, GlassFishRelaySite.class).javaAgent(JrmpZigzagTest.AGENT).args("dthreads")
                .systemProperty("dthreads.callbacks", "original");
    }

    private static String route(SiteCluster cluster, List<Site> sites, String route, String mode) {
        return cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> sites.get(0).run("route", route, mode));
    }

    @Test
    void plainCallsAndCallbacksUseNoHelperThread(SiteCluster cluster) {
        List<Site> sites = cluster.start(site("A"), site("B"));
        assertEquals("A[first,fresh] > B[first,fresh]", route(cluster, sites, "A,B", "none"));
        assertEquals("A[first,fresh] > B[first,fresh] > A[same,seen]", route(cluster, sites, "A,B,A", "vector"));
        assertEquals("A[first,fresh] > B[first,fresh] > A[same,seen] > B[same,seen] > A[same,seen]",
                route(cluster, sites, "A,B,A,B,A", "vector"));
        // helpers live 30 s after their last call: any that ran one is still there
        assertEquals("", sites.get(0).run("helpers"), "helper threads at A");
        assertEquals("", sites.get(1).run("helpers"), "helper threads at B");
    }

    @Test
    void theOrbsReplyTimeoutCountsFromTheFirstWaitAcrossCallbacks(SiteCluster cluster) {
        // A's reply timeout is 1 s; B calls A back five times, 400 ms apart: each callback re-enters A's reply wait,
        // which must not start the ORB's timeout again (the call would then last the 2 s and succeed)
        List<Site> sites = cluster.start(site("A").systemProperty("relay.responseTimeoutMillis", "1000"), site("B"));
        long start = System.nanoTime();
        String result = route(cluster, sites, "A,B,A", "ticking");
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(result.startsWith("failed: ") && result.contains("COMM_FAILURE"), result);
        assertTrue(millis < 1900, "timed out after " + millis + " ms, not when B was done");
    }
}
