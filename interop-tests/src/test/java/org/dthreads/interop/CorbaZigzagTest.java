package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import example.zigzag.corba.CorbaHopSite;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Zigzags over CORBA (JacORB, separate JVMs) with synchronized servants: with the agent and the
 * dthreads interceptor they complete; plain JacORB sites deadlock (the control).
 */
@ExtendWith(SitesExtension.class)
class CorbaZigzagTest {

    static List<Site> start(SiteCluster cluster, boolean dthreads, String... names) {
        List<SiteSpec> specs = new ArrayList<>();
        for (String name : names) {
            SiteSpec spec = SiteSpec.app(name, CorbaHopSite.class);
            specs.add(dthreads ? spec.javaAgent(JrmpZigzagTest.AGENT).args("dthreads") : spec);
        }
        return cluster.start(specs.toArray(SiteSpec[]::new));
    }

    @Test
    void twoSiteZigzagCompletesWithDthreads(SiteCluster cluster) {
        List<Site> sites = start(cluster, true, "A", "B");
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("route", "A,B,A"));
        assertTrue(trail.matches("A@.* > B@.* > A@.*"), trail);
    }

    @Test
    void twoSiteZigzagDeadlocksWithoutDthreads(SiteCluster cluster) {
        List<Site> sites = start(cluster, false, "A", "B");
        cluster.assertDeadlocksWithin(Duration.ofSeconds(3), () -> sites.get(0).run("route", "A,B,A"));
    }

    @Test
    void onJdk25TheZigzagCompletesWithDthreadsAndDeadlocksWithout(SiteCluster cluster) {
        java.nio.file.Path java25 = Jdk25.javaOrSkip();
        List<Site> with = cluster.start(
                SiteSpec.app("A", CorbaHopSite.class).javaAgent(JrmpZigzagTest.AGENT).args("dthreads").javaExecutable(java25),
                SiteSpec.app("B", CorbaHopSite.class).javaAgent(JrmpZigzagTest.AGENT).args("dthreads").javaExecutable(java25));
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> with.get(0).run("route", "A,B,A"));
        assertTrue(trail.matches("A@.* > B@.* > A@.*"), trail);
        List<Site> without = cluster.start(SiteSpec.app("C", CorbaHopSite.class).javaExecutable(java25),
                SiteSpec.app("D", CorbaHopSite.class).javaExecutable(java25));
        cluster.assertDeadlocksWithin(Duration.ofSeconds(4), () -> without.get(0).run("route", "C,D,C"));
    }

    @Test
    void threeSiteRingAndTenHopsCompleteWithDthreads(SiteCluster cluster) {
        List<Site> sites = start(cluster, true, "A", "B", "C");
        String ring = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("route", "A,B,C,A"));
        assertTrue(ring.matches("A@.* > B@.* > C@.* > A@.*"), ring);
        String deep = cluster.assertCompletesWithin(Duration.ofSeconds(30),
                () -> sites.get(0).run("route", "A,B,A,B,A,B,A,B,A,B,A"));
        assertTrue(deep.split(" > ").length == 11, deep);
    }
}
