package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import example.interrupts.InterruptStatusSites;
import java.time.Duration;
import java.util.List;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 20 §2: the interrupt status of a thread blocked in a JRMP call chain A -> B -> A, two JVMs with the
 * agent. A's code interrupts T while T's class runs in a callback on A: {@code t.isInterrupted()} reads true at
 * once (the interrupt is kept for T's class, not set on T, whose socket read would ignore it); the callback,
 * which is T's class, sees it with {@code Thread.currentThread().isInterrupted()} and takes it with
 * {@code Thread.interrupted()}; T's status is clear when its call returns: one interrupt, delivered once, as
 * in the single-threaded program.
 */
@ExtendWith(SitesExtension.class)
class InterruptStatusAcrossSitesTest {

    @Test
    void theCallbackOfTheInterruptedThreadsClassSeesAndTakesTheInterrupt(SiteCluster cluster) {
        List<Site> sites = cluster.start(
                SiteSpec.app("A", InterruptStatusSites.A.class).javaAgent(JrmpZigzagTest.AGENT),
                SiteSpec.app("B", InterruptStatusSites.B.class).javaAgent(JrmpZigzagTest.AGENT));
        Site a = sites.get(0);
        a.run("startChain");
        String seen = cluster.assertCompletesWithin(Duration.ofSeconds(60), () -> a.run("interrupt"));
        assertEquals("t.isInterrupted() true; B: callback: isInterrupted true, interrupted true, again false;"
                + " T's status after its call false", seen);
    }
}
