package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.rmiiiop.DualProtocolSite;
import java.time.Duration;
import java.util.List;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An ordinary RMI-IIOP program (GlassFish ORB, {@code PortableRemoteObject.exportObject} then {@code toStub},
 * dynamic stubs) runs under the agent with no dthreads property, while the same remote interface, with its
 * JRMP twins, is served over JRMP by the same object in the same JVM. Without the fix the site dies at start
 * ({@code NoSuchObjectException: object not exported} from {@code toStub}: the ORB's stub generator rejected
 * the interface's default methods).
 */
@ExtendWith(SitesExtension.class)
class RmiIiopTransparencyTest {

    static SiteSpec agentSite(String name) {
        return SiteSpec.app(name, DualProtocolSite.class).javaAgent(JrmpZigzagTest.AGENT).args("dthreads");
    }

    @Test
    void theProgramStartsAndGetsADynamicStubWithNoProperty(SiteCluster cluster) {
        Site a = cluster.start(agentSite("A"));
        String stubs = a.run("stubs");
        assertTrue(stubs.contains("DynamicStub"), stubs);
        // the interface seen by the program has its twin and the monitor entries: the JRMP retrofit is on
        assertEquals("4", stubs.substring(stubs.indexOf(' ') + 1),
                "forward, its twin, the monitor entry and the diagnostic one (dthreads$diagnose): " + stubs);
    }

    @Test
    void zigzagsOverEitherProtocolAndAcrossBothComplete(SiteCluster cluster) {
        List<Site> sites = cluster.start(agentSite("A"), agentSite("B"));
        for (String route : List.of("A,iiop:B,iiop:A", "A,rmi:B,rmi:A", "A,iiop:B,rmi:A", "A,rmi:B,iiop:A,rmi:B")) {
            String trail = cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> sites.get(0).run("route", route));
            assertEquals(route.split(",").length, trail.split(" > ").length, route + ": " + trail);
        }
    }

    @Test
    void aSiteWithTheAgentAndOneWithoutCallEachOtherOverBothProtocols(SiteCluster cluster) {
        List<Site> sites = cluster.start(agentSite("A"), SiteSpec.app("B", DualProtocolSite.class));
        assertEquals("A > iiop:B", cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> sites.get(0).run("route", "A,iiop:B")));
        assertEquals("A > rmi:B", cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> sites.get(0).run("route", "A,rmi:B")));
        assertEquals("B > iiop:A", cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> sites.get(1).run("route", "B,iiop:A")));
        assertEquals("B > rmi:A", cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> sites.get(1).run("route", "B,rmi:A")));
    }

    @Test
    void controlWithoutDthreadsDeadlocksAcrossTheProtocols(SiteCluster cluster) {
        List<Site> sites = cluster.start(SiteSpec.app("A", DualProtocolSite.class), SiteSpec.app("B", DualProtocolSite.class));
        cluster.assertDeadlocksWithin(Duration.ofSeconds(4), () -> sites.get(0).run("route", "A,iiop:B,rmi:A"));
    }

    @Test
    void theNoTwinsEscapeHatchStillWorksForIiop(SiteCluster cluster) {
        List<Site> sites = cluster.start(agentSite("A").systemProperty("dthreads.rmi.noTwins", "example.rmiiiop."),
                agentSite("B").systemProperty("dthreads.rmi.noTwins", "example.rmiiiop."));
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> sites.get(0).run("route", "A,iiop:B,iiop:A"));
        assertEquals(3, trail.split(" > ").length, trail);
        assertEquals("1", sites.get(0).run("stubs").split(" ")[1], "no twins, no monitor entry");
    }
}
