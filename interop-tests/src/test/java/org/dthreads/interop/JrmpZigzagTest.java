package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.zigzag.rmi.HopSite;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * Zigzags over real JRMP between separate JVMs, with synchronized methods and blocks at every site:
 * with the dthreads agent they complete; the same sites without it deadlock (the control).
 */
@ExtendWith(SitesExtension.class)
class JrmpZigzagTest {

    static final Path AGENT = Path.of(System.getProperty("dthreads.agent.jar", "../dthreads-agent/target/dthreads-agent.jar"));

    @BeforeAll
    static void agentIsBuilt() {
        assertTrue(Files.isRegularFile(AGENT), "run the build first: no agent at " + AGENT.toAbsolutePath());
    }

    static List<Site> start(SiteCluster cluster, boolean dthreads, String... names) {
        List<SiteSpec> specs = new ArrayList<>();
        for (String name : names) {
            SiteSpec spec = SiteSpec.app(name, HopSite.class);
            specs.add(dthreads ? spec.javaAgent(AGENT) : spec);
        }
        return cluster.start(specs.toArray(SiteSpec[]::new));
    }

    @Test
    void twoSiteZigzagCompletesWithDthreads(SiteCluster cluster) {
        List<Site> sites = start(cluster, true, "A", "B");
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("route", "A,B,A"));
        assertTrue(trail.matches("A@.* > B@.* > A@.*"), trail);
        assertEquals("2", sites.get(0).run("visits"));
        String dump = sites.get(0).monitorDump();
        assertTrue(!dump.startsWith("no dthreads monitor runtime"), dump);
    }

    @Test
    void twoSiteZigzagDeadlocksWithoutDthreads(SiteCluster cluster) {
        List<Site> sites = start(cluster, false, "A", "B");
        DeadlockEvidence evidence = cluster.assertDeadlocksWithin(Duration.ofSeconds(3), () -> sites.get(0).run("route", "A,B,A"),
                "HopSite$Node.forward", e -> e.toString().contains("HopSite$Node.forward"));
        assertTrue(evidence.toString().contains("HopSite$Node.forward"), evidence::toString);
    }

    @Test
    void twoSiteZigzagOnJdk25CompletesWithDthreadsAndDeadlocksWithout(SiteCluster cluster) {
        Path java25 = Jdk25.javaOrSkip();
        List<Site> with = cluster.start(SiteSpec.app("A", HopSite.class).javaAgent(AGENT).javaExecutable(java25),
                SiteSpec.app("B", HopSite.class).javaAgent(AGENT).javaExecutable(java25));
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> with.get(0).run("route", "A,B,A"));
        assertTrue(trail.matches("A@.* > B@.* > A@.*"), trail);
        List<Site> without = cluster.start(SiteSpec.app("C", HopSite.class).javaExecutable(java25),
                SiteSpec.app("D", HopSite.class).javaExecutable(java25));
        cluster.assertDeadlocksWithin(Duration.ofSeconds(3), () -> without.get(0).run("route", "C,D,C"));
    }

    @Test
    void threeSiteRingCompletesWithDthreads(SiteCluster cluster) {
        List<Site> sites = start(cluster, true, "A", "B", "C");
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("route", "A,B,C,A"));
        assertTrue(trail.matches("A@.* > B@.* > C@.* > A@.*"), trail);
    }

    @Test
    void threeSiteRingDeadlocksWithoutDthreads(SiteCluster cluster) {
        List<Site> sites = start(cluster, false, "A", "B", "C");
        cluster.assertDeadlocksWithin(Duration.ofSeconds(3), () -> sites.get(0).run("route", "A,B,C,A"));
    }

    @Test
    void tenHopsDeepCompletesWithDthreads(SiteCluster cluster) {
        List<Site> sites = start(cluster, true, "A", "B");
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(30),
                () -> sites.get(0).run("route", "A,B,A,B,A,B,A,B,A,B,A"));
        assertEquals(11, trail.split(" > ").length, trail);
        assertEquals("6", sites.get(0).run("visits"));
    }
}
