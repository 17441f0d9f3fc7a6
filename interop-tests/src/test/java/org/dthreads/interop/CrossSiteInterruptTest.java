package org.dthreads.interop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import example.interrupts.InterruptSites;
import java.time.Duration;
import java.util.List;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue #10, interrupts: {@code t.interrupt()} on a thread whose class waits at another site interrupts that
 * wait, which throws {@code InterruptedException} there; the interrupt is delivered once (the interrupted
 * thread's own status stays clear). Over JRMP, three JVMs.
 */
@ExtendWith(SitesExtension.class)
class CrossSiteInterruptTest {

    private static List<Site> start(SiteCluster cluster, boolean dthreads) {
        List<Site> sites = cluster.start(spec("A", InterruptSites.A.class, dthreads), spec("B", InterruptSites.B.class, dthreads),
                spec("C", InterruptSites.C.class, dthreads));
        sites.get(1).run("connect");
        return sites;
    }

    private static SiteSpec spec(String name, Class<? extends org.dthreads.junit.SiteApp> app, boolean dthreads) {
        SiteSpec spec = SiteSpec.app(name, app);
        return dthreads ? spec.javaAgent(JrmpZigzagTest.AGENT) : spec;
    }

    private static void awaitWaiterAt(Site c) {
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                .until(() -> c.monitorDump().matches("(?s).*waiting: \\[[^\\]]+\\].*"));
    }

    @Test
    void anInterruptReachesTheWaitTwoHopsDownTheChain(SiteCluster cluster) {
        List<Site> sites = start(cluster, true);
        sites.get(0).run("startChain");
        awaitWaiterAt(sites.get(2));
        String seen = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("interrupt", "10000"));
        assertEquals("B relayed: C's wait interrupted, holds lock true, status false; T's status false", seen);
    }

    @Test
    void anInterruptEndsARemoteWaitOnAStub(SiteCluster cluster) {
        List<Site> sites = start(cluster, true);
        sites.get(0).run("startRemoteWait");
        awaitWaiterAt(sites.get(2));
        String seen = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("interrupt", "10000"));
        assertEquals("T's remote wait interrupted, holds true, status false", seen);
    }

    @Test
    void anInterruptEndsARemoteWaitOnACorbaStub(SiteCluster cluster) {
        List<Site> sites = cluster.start(CorbaRemoteMonitorTest.site("S", example.monitors.corba.CounterSite.class, true,
                "server"), CorbaRemoteMonitorTest.site("C", example.monitors.corba.CounterSite.class, true, "client"));
        sites.get(1).run("startRemoteWait", "S");
        awaitWaiterAt(sites.get(0));
        String seen = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(1).run("interruptWaiter"));
        assertEquals("T's remote wait interrupted, holds true, status false", seen);
    }

    @Test
    void controlWithoutDthreadsTheInterruptStaysWithTheBlockedCaller(SiteCluster cluster) {
        List<Site> sites = start(cluster, false);
        sites.get(0).run("startChain");
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                .until(() -> sites.get(2).threadDump().contains("waitHere"));
        assertEquals("T still blocked", sites.get(0).run("interrupt", "2000"),
                "a JRMP call ignores the interrupt; C's wait goes on");
    }
}
