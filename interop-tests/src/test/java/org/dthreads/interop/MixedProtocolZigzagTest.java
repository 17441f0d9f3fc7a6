package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import example.zigzag.mixed.MixedHopSite;
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
 * Chains that change protocol on the way, with a synchronized method at every site: a JRMP call whose
 * callee makes a CORBA call whose callee calls back over JRMP. The class crosses each protocol
 * boundary; without dthreads the chain deadlocks.
 */
@ExtendWith(SitesExtension.class)
class MixedProtocolZigzagTest {

    static List<Site> start(SiteCluster cluster, boolean dthreads, String... names) {
        List<SiteSpec> specs = new ArrayList<>();
        for (String name : names) {
            SiteSpec spec = SiteSpec.app(name, MixedHopSite.class);
            specs.add(dthreads ? spec.javaAgent(JrmpZigzagTest.AGENT).args("dthreads") : spec);
        }
        return cluster.start(specs.toArray(SiteSpec[]::new));
    }

    @Test
    void jrmpThenCorbaThenJrmpBackCompletesWithDthreads(SiteCluster cluster) {
        List<Site> sites = start(cluster, true, "A", "B", "C");
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(20),
                () -> sites.get(0).run("route", "A,rmi:B,corba:C,rmi:A"));
        assertTrue(trail.matches("A@.* > rmi:B@.* > corba:C@.* > rmi:A@.*"), trail);
    }

    @Test
    void corbaThenJrmpBackAndAgainCompletesWithDthreads(SiteCluster cluster) {
        List<Site> sites = start(cluster, true, "A", "B");
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(20),
                () -> sites.get(0).run("route", "A,corba:B,rmi:A,corba:B,rmi:A"));
        assertTrue(trail.split(" > ").length == 5, trail);
    }

    @Test
    void controlWithoutDthreadsTheMixedChainDeadlocks(SiteCluster cluster) {
        List<Site> sites = start(cluster, false, "A", "B", "C");
        cluster.assertDeadlocksWithin(Duration.ofSeconds(3), () -> sites.get(0).run("route", "A,rmi:B,corba:C,rmi:A"));
    }
}
