package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import example.zigzag.corba.CorbaHopSite;
import example.zigzag.python.PythonHopSite;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A non-Java peer in the middle of a zigzag: Java site A (synchronized servant, agent, dthreads ORB
 * initializer) calls a Python omniORBpy peer, which calls back into A. With the documented
 * forwarding recipe the callback runs under A's class and the chain completes; without it the
 * chain deadlocks, as without dthreads. Needs {@code -Ddthreads.test.omniorb.python} (CI sets it and
 * then requires it).
 */
@ExtendWith(SitesExtension.class)
class OmniOrbZigzagTest {

    private static final String PYTHON = System.getProperty("dthreads.test.omniorb.python", "");

    @BeforeEach
    void needsPython() {
        boolean available = !PYTHON.isBlank() && !PYTHON.startsWith("${") && Files.isExecutable(Path.of(PYTHON));
        if (Boolean.getBoolean("dthreads.test.requireOmniorb")) {
            assertTrue(available, "no omniORBpy python (-Ddthreads.test.omniorb.python); .ci/run installs it");
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(available, "no -Ddthreads.test.omniorb.python");
    }

    private static List<Site> start(SiteCluster cluster, boolean forward) {
        return cluster.start(
                SiteSpec.app("A", CorbaHopSite.class).javaAgent(JrmpZigzagTest.AGENT).args("dthreads"),
                SiteSpec.app("P", PythonHopSite.class).args(forward ? "forward" : "no-forward")
                        .systemProperty("dthreads.test.omniorb.python", PYTHON));
    }

    @Test
    void javaToPythonToJavaCompletesWhenThePeerForwardsTheContext(SiteCluster cluster) {
        List<Site> sites = start(cluster, true);
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("route", "A,P,A"));
        assertTrue(trail.matches("A@.* > P@python > A@.*"), trail);
    }

    @Test
    void withoutForwardingTheChainDeadlocksAsWithoutDthreads(SiteCluster cluster) {
        List<Site> sites = start(cluster, false);
        org.dthreads.junit.DeadlockEvidence evidence = cluster.assertDeadlocksWithin(Duration.ofSeconds(4),
                () -> sites.get(0).run("route", "A,P,A"), "the callback entering the monitor at A", e -> {
                    String dumpA = e.report("A").threadDump();
                    return dumpA.contains("org.dthreads.monitor.Monitors.enter") && dumpA.contains("CorbaHopSite$Node.forward");
                });
        // the callback reached A and waits for the emulated monitor its own chain holds
        String dumpA = evidence.report("A").threadDump();
        assertTrue(dumpA.contains("org.dthreads.monitor.Monitors.enter") && dumpA.contains("CorbaHopSite$Node.forward"), dumpA);
    }
}
