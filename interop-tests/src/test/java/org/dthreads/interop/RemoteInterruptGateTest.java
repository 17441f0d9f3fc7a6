package org.dthreads.interop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.forged.ForgerSites;
import example.forged.InterruptGateSites;
import example.interrupts.InterruptSites;
import java.time.Duration;
import java.util.List;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 15 §4: the INTERRUPT operation obeys the causality rule. A peer F that knows the class of a site's
 * home thread (class values are not secret from peers) sends INTERRUPT for it: it can neither interrupt the
 * thread's own wait at the site nor make the site forward the interrupt along the thread's own outgoing call.
 * The interrupt of the thread by the site's own code still reaches the wait down its chain. Over JRMP, three JVMs.
 */
@ExtendWith(SitesExtension.class)
class RemoteInterruptGateTest {

    private static final String INTERRUPT = Integer.toString(RemoteMonitorSite.INTERRUPT);

    private static SiteSpec spec(String name, Class<? extends org.dthreads.junit.SiteApp> app) {
        return SiteSpec.app(name, app).javaAgent(JrmpZigzagTest.AGENT);
    }

    private static void awaitWaiterAt(Site site) {
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                .until(() -> site.monitorDump().matches("(?s).*waiting: \\[[^\\]]+\\].*"));
    }

    @Test
    void aPeerThatKnowsAHomeThreadsClassCannotInterruptItsLocalWait(SiteCluster cluster) {
        List<Site> sites = cluster.start(spec("S", InterruptGateSites.S.class), spec("F", ForgerSites.F.class));
        Site s = sites.get(0);
        String cls = s.run("waitLocally", "3000");
        awaitWaiterAt(s);

        String reply = sites.get(1).run("opAs", INTERRUPT, cls, "0", "5000", "32");

        assertTrue(reply.startsWith("IllegalMonitorStateException"), "refused: " + reply);
        assertEquals("W's wait timed out", cluster.assertCompletesWithin(Duration.ofSeconds(15),
                () -> s.run("outcome", "10000")));
        assertTrue(s.stderrTail().contains("refused remote monitor operation " + INTERRUPT), s.stderrTail());
        assertTrue(s.stderrTail().contains("from 127.0.0.1"), "the refusal names the peer: " + s.stderrTail());
    }

    @Test
    void norMakeTheSiteForwardItAlongTheHomeThreadsCall(SiteCluster cluster) {
        List<Site> sites = cluster.start(spec("S", InterruptGateSites.S.class), spec("F", ForgerSites.F.class),
                spec("C", InterruptSites.C.class));
        Site s = sites.get(0);
        Site c = sites.get(2);
        String cls = s.run("callOut");
        awaitWaiterAt(c);

        String reply = sites.get(1).run("opAs", INTERRUPT, cls, "0", "5000", "32");

        assertTrue(reply.startsWith("IllegalMonitorStateException"), "refused: " + reply);
        assertEquals("pending", s.run("outcome", "500"), "C's wait goes on");
        // the site's own interrupt of its thread still goes down the chain
        String seen = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> s.run("interrupt", "10000"));
        assertEquals("C's wait interrupted, holds lock true, status false; status false", seen);
    }
}
