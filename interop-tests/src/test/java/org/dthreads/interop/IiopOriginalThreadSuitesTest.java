package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.zigzag.corba.CorbaHopSite;
import example.zigzag.iiop.IiopHopSite;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The project's IIOP zigzag routes ({@link CorbaZigzagTest} on JacORB, {@link RmiIiopZigzagTest} on the GlassFish
 * ORB) with every site in {@code -Ddthreads.callbacks=original}: they complete as in take-over mode, the callbacks
 * at the starting site run on the step's own thread, and no callback had to wait out the queue bound for its
 * original thread (which would show as a log line and a 5 s stall).
 */
@ExtendWith(SitesExtension.class)
class IiopOriginalThreadSuitesTest {

    private static final String NOT_TAKEN = "was not taken by its original thread";

    private static List<Site> start(SiteCluster cluster, Class<? extends SiteApp> app, String... names) {
        List<SiteSpec> specs = new ArrayList<>();
        for (String name : names) {
            specs.add(SiteSpec.app(name, app).javaAgent(JrmpZigzagTest.AGENT).args("dthreads")
                    .systemProperty("dthreads.callbacks", "original"));
        }
        return cluster.start(specs.toArray(SiteSpec[]::new));
    }

    private static void noCallbackWaitedOutTheQueueBound(List<Site> sites) {
        for (Site site : sites) {
            assertFalse(site.stderrTail().contains(NOT_TAKEN), site::stderrTail);
        }
    }

    @Test
    void jacorbRoutesCompleteWithEveryHopOfTheStartingSiteOnItsThread(SiteCluster cluster) {
        List<Site> sites = start(cluster, CorbaHopSite.class, "A", "B", "C");
        String two = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("route", "A,B,A"));
        assertTrue(two.matches("A@(dthreads) > B@.* > A@\\1"), two); // the callback at A runs on the step's thread
        String ring = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("route", "A,B,C,A"));
        assertTrue(ring.matches("A@(dthreads) > B@.* > C@.* > A@\\1"), ring);
        String deep = cluster.assertCompletesWithin(Duration.ofSeconds(30),
                () -> sites.get(0).run("route", "A,B,A,B,A,B,A,B,A,B,A"));
        assertEquals(11, deep.split(" > ").length, deep);
        assertTrue(deep.matches("A@dthreads( > B@\\w+ > A@dthreads){5}"), deep);
        noCallbackWaitedOutTheQueueBound(sites);
    }

    @Test
    void glassFishRmiIiopRoutesCompleteWithEveryHopOfTheStartingSiteOnItsThread(SiteCluster cluster) {
        List<Site> sites = start(cluster, IiopHopSite.class, "A", "B");
        String two = cluster.assertCompletesWithin(Duration.ofSeconds(30),
                () -> sites.get(0).run("route", "A,iiop:B,iiop:A"));
        assertTrue(two.matches("A@(dthreads) > iiop:B@.* > iiop:A@\\1"), two);
        String deep = cluster.assertCompletesWithin(Duration.ofSeconds(30),
                () -> sites.get(0).run("route", "A,iiop:B,iiop:A,iiop:B,iiop:A,iiop:B,iiop:A"));
        assertTrue(deep.matches("A@dthreads( > iiop:B@\\w+ > iiop:A@dthreads){3}"), deep);
        noCallbackWaitedOutTheQueueBound(sites);
    }
}
