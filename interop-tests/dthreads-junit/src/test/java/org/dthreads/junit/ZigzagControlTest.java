package org.dthreads.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import org.dthreads.junit.fixtures.ZigzagSiteA;
import org.dthreads.junit.fixtures.ZigzagSiteB;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The two-site zigzag over plain JRMP without dthreads: the control that proves the kit detects a
 * distributed deadlock, and the variant without a shared monitor that completes.
 */
@ExtendWith(SitesExtension.class)
class ZigzagControlTest {

    private static List<Site> startZigzag(SiteCluster cluster, String mode) {
        long t0 = System.nanoTime();
        List<Site> sites = cluster.start(SiteSpec.app("A", ZigzagSiteA.class).args(mode),
                SiteSpec.app("B", ZigzagSiteB.class));
        System.out.printf("two-site start (%s): %d ms (A %d ms, B %d ms)%n", mode, (System.nanoTime() - t0) / 1_000_000,
                sites.get(0).startupTime().orElseThrow().toMillis(), sites.get(1).startupTime().orElseThrow().toMillis());
        return sites;
    }

    @Test
    void zigzagWithoutDthreadsDeadlocks(SiteCluster cluster) {
        List<Site> sites = startZigzag(cluster, "shared");
        Site a = sites.get(0);

        DeadlockEvidence evidence = cluster.assertDeadlocksWithin(Duration.ofSeconds(3), () -> a.run("zigzag"),
                "A's baz BLOCKED under its foo, B in bar", e -> e.report("A").blockedThreadCount() >= 1
                        && e.report("A").threadDump().contains("ZigzagSiteA$Impl.baz")
                        && e.report("A").threadDump().contains("ZigzagSiteA$Impl.foo")
                        && e.report("B").threadDump().contains("ZigzagSiteB$Impl.bar"));

        // The proof: site A has a server thread BLOCKED in baz on the monitor its own zigzag thread holds.
        SiteReport ra = evidence.report("A");
        assertTrue(ra.alive(), "A was alive while stuck");
        assertTrue(evidence.report("B").alive(), "B was alive while stuck");
        assertTrue(ra.blockedThreadCount() >= 1, ra::threadDump);
        assertTrue(ra.threadDump().contains("ZigzagSiteA$Impl.baz"), ra::threadDump);
        assertTrue(ra.threadDump().contains("- locked ") && ra.threadDump().contains("ZigzagSiteA$Impl.foo"),
                ra::threadDump);
        assertTrue(evidence.report("B").threadDump().contains("ZigzagSiteB$Impl.bar"), evidence::format);
        assertTrue(ra.monitorDump().contains("no dthreads monitor runtime on this site"), ra::monitorDump);
        // and everything was killed afterwards
        assertFalse(a.isAlive());
        assertFalse(sites.get(1).isAlive());
    }

    @Test
    void zigzagWithoutSharedMonitorCompletes(SiteCluster cluster) {
        List<Site> sites = startZigzag(cluster, "separate");
        Site a = sites.get(0);

        String result = cluster.assertCompletesWithin(Duration.ofSeconds(10), () -> a.run("zigzag"));

        assertTrue(result.startsWith("foo(bar(baz[B,"), result);
        assertEquals("2", a.run(Duration.ofSeconds(5), "calls"));
        assertTrue(a.isAlive(), "sites stay up after a scenario that completed");
        // a second scenario on the same cluster
        assertTrue(cluster.assertCompletesWithin(Duration.ofSeconds(10), () -> a.run("zigzag")).startsWith("foo("));
    }

    @Test
    void assertCompletesWithinFailsOnTheDeadlockWithEverySitesDumps(SiteCluster cluster) {
        List<Site> sites = startZigzag(cluster, "shared");

        AssertionError e = assertThrows(AssertionError.class,
                () -> cluster.assertCompletesWithin(Duration.ofSeconds(3), () -> sites.get(0).run("zigzag")));

        String m = e.getMessage();
        assertTrue(m.startsWith("Scenario did not complete within 3000 ms"), m);
        assertTrue(m.contains("===== site A") && m.contains("===== site B"), m);
        assertTrue(m.contains("BLOCKED") && m.contains("ZigzagSiteA$Impl.baz"), m);
        assertTrue(m.contains("--- dthreads monitor dump:"), m);
        assertTrue(m.contains("test-side scenario thread"), m);
        assertTrue(m.contains("(all sites of this cluster have been killed)"), m);
        for (Site s : sites) {
            assertFalse(s.isAlive(), s + " killed after the failure");
        }
    }

    @Test
    void assertDeadlocksWithinFailsWhenTheScenarioCompletes(SiteCluster cluster) {
        List<Site> sites = startZigzag(cluster, "separate");

        AssertionError e = assertThrows(AssertionError.class,
                () -> cluster.assertDeadlocksWithin(Duration.ofSeconds(5), () -> sites.get(0).run("zigzag")));

        assertTrue(e.getMessage().startsWith("Expected a deadlock, but the scenario completed in"), e.getMessage());
        assertTrue(e.getMessage().contains("The control proves nothing"), e.getMessage());
    }
}
