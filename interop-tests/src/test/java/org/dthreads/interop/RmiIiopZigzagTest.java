package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import example.zigzag.iiop.IiopHopSite;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.dthreads.junit.DeadlockEvidence;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Zigzags over RMI-IIOP (GlassFish ORB, dynamic stubs, JDK 17), with no dthreads property: the interface
 * has its JRMP twins and still gets GlassFish dynamic stubs. Identity travels in the IIOP service context.
 */
@ExtendWith(SitesExtension.class)
class RmiIiopZigzagTest {

    static List<Site> start(SiteCluster cluster, boolean dthreads, String... names) {
        List<SiteSpec> specs = new ArrayList<>();
        for (String name : names) {
            SiteSpec spec = SiteSpec.app(name, IiopHopSite.class);
            specs.add(dthreads ? spec.javaAgent(JrmpZigzagTest.AGENT).args("dthreads") : spec);
        }
        return cluster.start(specs.toArray(SiteSpec[]::new));
    }

    @Test
    void rmiIiopZigzagCompletesWithDthreads(SiteCluster cluster) {
        List<Site> sites = start(cluster, true, "A", "B");
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> sites.get(0).run("route", "A,iiop:B,iiop:A"));
        assertTrue(trail.split(" > ").length == 3, trail);
    }

    @Test
    void controlWithoutDthreadsDeadlocksAtTheCallback(SiteCluster cluster) {
        List<Site> sites = start(cluster, false, "A", "B");
        DeadlockEvidence evidence = cluster.assertDeadlocksWithin(Duration.ofSeconds(4),
                () -> sites.get(0).run("route", "A,iiop:B,iiop:A"), "the callback BLOCKED at A", e -> e.report("A")
                        .threadDump().contains("BLOCKED on example.zigzag.iiop.IiopHopSite$Node"));
        // the callback reached A and blocks there: a real zigzag deadlock, not a request that never arrived
        assertTrue(evidence.report("A").threadDump().contains("BLOCKED on example.zigzag.iiop.IiopHopSite$Node"),
                evidence::toString);
    }

    @Test
    void aTwinnedInterfaceGetsAGlassFishStubAndZigzagsAcrossBothProtocols(SiteCluster cluster) {
        List<Site> sites = start(cluster, true, "A", "B");
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> sites.get(0).run("route", "A,rmi:B,iiop:A"));
        assertTrue(trail.split(" > ").length == 3, trail);
    }
}
