package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import example.waitnotify.WaitNotifySites;
import java.time.Duration;
import java.util.List;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A callback thread notifies a waiter of a monitor its chain holds; the waiter runs only after the outer hold ends. */
@ExtendWith(SitesExtension.class)
class JrmpWaitNotifyTest {

    @Test
    void theNotifiedWaiterRunsOnlyAfterTheChainReleasesItsOuterHold(SiteCluster cluster) {
        List<Site> sites = cluster.start(SiteSpec.app("A", WaitNotifySites.A.class).javaAgent(JrmpZigzagTest.AGENT),
                SiteSpec.app("B", WaitNotifySites.B.class).javaAgent(JrmpZigzagTest.AGENT));
        String events = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("scenario"));
        assertEquals("U waits | T holds M | T' notified U | B says callback from B | T back from B | T releases M | U resumed",
                events);
    }

    @Test
    void controlWithoutDthreadsTheCallbackCannotEnter(SiteCluster cluster) {
        List<Site> sites = cluster.start(SiteSpec.app("A", WaitNotifySites.A.class), SiteSpec.app("B", WaitNotifySites.B.class));
        cluster.assertDeadlocksWithin(Duration.ofSeconds(3), () -> sites.get(0).run("scenario"));
    }
}
