package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.zigzag.mixed.MixedHopSite;
import example.zigzag.rmi.HopSite;
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
 * The project's JRMP and mixed-protocol zigzag routes ({@link JrmpZigzagTest}, {@link MixedProtocolZigzagTest})
 * with every site in {@code -Ddthreads.callbacks=original}: they complete as in take-over mode, and no callback
 * had to wait out the queue bound for its original thread (which would show as a log line and a 5 s stall).
 */
@ExtendWith(SitesExtension.class)
class OriginalThreadSuitesTest {

    private static final String NOT_TAKEN = "was not taken by its original thread";

    static List<Site> start(SiteCluster cluster, Class<?> app, String... names) {
        List<SiteSpec> specs = new ArrayList<>();
        for (String name : names) {
            SiteSpec spec = SiteSpec.app(name, app.asSubclass(org.dthreads.junit.SiteApp.class))
                    .javaAgent(JrmpZigzagTest.AGENT).systemProperty("dthreads.callbacks", "original");
            specs.add(app == MixedHopSite.class ? spec.args("dthreads") : spec);
        }
        return cluster.start(specs.toArray(SiteSpec[]::new));
    }

    private static void noCallbackWaitedOutTheQueueBound(List<Site> sites) {
        for (Site site : sites) {
            assertFalse(site.stderrTail().contains(NOT_TAKEN), site::stderrTail);
        }
    }

    @Test
    void jrmpRoutesCompleteWithEveryHopOfTheStartingSiteOnItsThread(SiteCluster cluster) {
        List<Site> sites = start(cluster, HopSite.class, "A", "B", "C");
        String two = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("route", "A,B,A"));
        assertTrue(two.matches("A@(\\w+) > B@.* > A@\\1"), two); // the callback at A runs on the step's thread
        String ring = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("route", "A,B,C,A"));
        assertTrue(ring.matches("A@(\\w+) > B@.* > C@.* > A@\\1"), ring);
        String deep = cluster.assertCompletesWithin(Duration.ofSeconds(30),
                () -> sites.get(0).run("route", "A,B,A,B,A,B,A,B,A,B,A"));
        assertEquals(11, deep.split(" > ").length, deep);
        noCallbackWaitedOutTheQueueBound(sites);
    }

    @Test
    void mixedProtocolRoutesComplete(SiteCluster cluster) {
        List<Site> sites = start(cluster, MixedHopSite.class, "A", "B", "C");
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(20),
                () -> sites.get(0).run("route", "A,rmi:B,corba:C,rmi:A"));
        assertTrue(trail.matches("A@.* > rmi:B@.* > corba:C@.* > rmi:A@.*"), trail);
        String back = cluster.assertCompletesWithin(Duration.ofSeconds(20),
                () -> sites.get(0).run("route", "A,corba:B,rmi:A,corba:B,rmi:A"));
        assertEquals(5, back.split(" > ").length, back);
        noCallbackWaitedOutTheQueueBound(sites);
    }
}
