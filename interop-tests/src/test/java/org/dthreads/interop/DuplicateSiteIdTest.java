package org.dthreads.interop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.rmiiiop.DualProtocolSite;
import example.zigzag.corba.CorbaHopSite;
import example.zigzag.rmi.HopSite;
import java.time.Duration;
import java.util.List;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 15 §5, duplicate site ids: two live sites started with the same {@code -Ddthreads.site} are reported
 * by the sites they call, by a site that calls both (over IIOP: the client asks each server, op 11) and by each
 * other when they call each other; a restart with the same id is not reported; distinct ids log nothing; a server
 * without dthreads costs its client one line. Over JRMP, JacORB (DSI servant, DII calls) and the GlassFish ORB
 * (RMI-IIOP). The sites' hellos are refreshed every {@value #REFRESH_MILLIS} ms here (20 s by default) so
 * that the reports come quickly.
 */
@ExtendWith(SitesExtension.class)
class DuplicateSiteIdTest {

    static final String REFRESH_MILLIS = "300";
    static final String SHARED_ID = "0x00d0d0d0";
    static final String DUPLICATE = "two live sites present site id 13684944 (0x00d0d0d0)";
    static final String OWN_ID = "presents this site's own id 13684944 (0x00d0d0d0)";
    static final Duration BOUND = Duration.ofSeconds(20);

    /** How a scenario's sites are built and how one calls another. */
    enum Kind {
        JRMP, JACORB, GLASSFISH,
        /** JacORB and the GlassFish ORB on the Portable Interceptor path ({@code -Ddthreads.iiop.path=portable}). */
        JACORB_PORTABLE, GLASSFISH_PORTABLE;

        SiteSpec site(String name, String siteId) {
            SiteSpec spec = switch (this) {
                case JRMP -> SiteSpec.app(name, HopSite.class);
                case JACORB, JACORB_PORTABLE -> SiteSpec.app(name, CorbaHopSite.class).args("dthreads");
                case GLASSFISH, GLASSFISH_PORTABLE -> SiteSpec.app(name, DualProtocolSite.class).args("dthreads");
            };
            spec = spec.javaAgent(JrmpZigzagTest.AGENT).systemProperty("dthreads.peers.refreshMillis", REFRESH_MILLIS);
            if (this == JACORB_PORTABLE || this == GLASSFISH_PORTABLE) {
                spec = spec.systemProperty("dthreads.iiop.path", "portable");
            }
            return siteId == null ? spec : spec.systemProperty("dthreads.site", siteId);
        }

        /** Site {@code from} calls site {@code to}. */
        void call(Site from, String fromName, String toName) {
            boolean rmiIiop = this == GLASSFISH || this == GLASSFISH_PORTABLE;
            from.run("route", rmiIiop ? fromName + ",iiop:" + toName : fromName + "," + toName);
        }
    }

    private static SiteSpec jrmp(String name, String siteId) {
        return Kind.JRMP.site(name, siteId);
    }

    private static SiteSpec corba(String name, String siteId) {
        return Kind.JACORB.site(name, siteId);
    }

    @ParameterizedTest
    @EnumSource(names = {"JRMP", "JACORB", "GLASSFISH"})
    void twoLiveSitesWithOneIdAreReportedByTheSiteTheyCallAndByEachOther(Kind kind, SiteCluster cluster) {
        List<Site> sites = cluster.start(kind.site("A", SHARED_ID), kind.site("B", SHARED_ID), kind.site("C", null));
        Site a = sites.get(0);
        Site b = sites.get(1);
        Site c = sites.get(2);
        await().atMost(BOUND).until(() -> {
            kind.call(a, "A", "C");
            kind.call(b, "B", "C");
            return c.stderrTail().contains(DUPLICATE);
        });
        String line = lineWith(c.stderrTail(), DUPLICATE);
        assertTrue(line.contains("incarnation") && line.contains("-Ddthreads.site"), line);

        kind.call(a, "A", "B");
        await().atMost(BOUND).until(() -> b.stderrTail().contains(OWN_ID));
        kind.call(b, "B", "A");
        await().atMost(BOUND).until(() -> a.stderrTail().contains(OWN_ID));
    }

    /**
     * A and B share an id and only serve (they call no one, so they never say hello by a request of theirs); C
     * calls both and reports them: over IIOP it learns a server's identity by asking it (op 11 on the monitor
     * operation channel), on JacORB (DSI servant, DII calls) and the GlassFish ORB (RMI-IIOP), on the fast
     * paths and the Portable Interceptor path. A and B log nothing about hellos.
     */
    @ParameterizedTest
    @EnumSource(names = {"JACORB", "GLASSFISH", "JACORB_PORTABLE", "GLASSFISH_PORTABLE"})
    void twoServersWithOneIdAreReportedByAClientOfBoth(Kind kind, SiteCluster cluster) {
        List<Site> sites = cluster.start(kind.site("A", SHARED_ID), kind.site("B", SHARED_ID), kind.site("C", null));
        Site c = sites.get(2);
        await().atMost(BOUND).until(() -> {
            kind.call(c, "C", "A");
            kind.call(c, "C", "B");
            return c.stderrTail().contains(DUPLICATE);
        });
        String line = lineWith(c.stderrTail(), DUPLICATE);
        assertTrue(line.contains("iiop server") && line.contains("-Ddthreads.site"), line);
        for (Site s : sites) {
            assertFalse(s.stderrTail().contains("site hello"), s.stderrTail());
        }
    }

    /**
     * A server without dthreads (plain JacORB, no agent: it answers the hello request with {@code BAD_OPERATION})
     * costs its client one log line, however many calls and refresh periods follow, and every call works.
     */
    @Test
    void aServerWithoutDthreadsCostsItsClientOneLine(SiteCluster cluster) {
        List<Site> sites = cluster.start(SiteSpec.app("P", CorbaHopSite.class), Kind.JACORB.site("C", null));
        Site c = sites.get(1);
        long until = System.nanoTime() + Duration.ofMillis(2_000).toNanos();
        while (System.nanoTime() < until) {
            Kind.JACORB.call(c, "C", "P");
        }
        await().atMost(BOUND).until(() -> c.stderrTail().contains("does not answer site hellos"));
        List<String> lines = c.stderrTail().lines().filter(l -> l.contains("site hello")).toList();
        assertEquals(1, lines.size(), c.stderrTail());
        assertTrue(lines.get(0).contains("does not run dthreads"), lines.get(0));
    }

    /**
     * A1 calls C and is killed; A2, started with A1's id, calls C for several refresh periods: nothing is
     * reported. Then B, with the same id again, calls C while A2 lives: reported (the hellos did flow).
     */
    @ParameterizedTest
    @EnumSource(names = {"JRMP", "JACORB", "GLASSFISH"})
    void aRestartWithTheSameIdIsNotReported(Kind kind, SiteCluster cluster) {
        List<Site> first = cluster.start(kind.site("A1", SHARED_ID), kind.site("C", null));
        Site c = first.get(1);
        kind.call(first.get(0), "A1", "C");
        assertTrue(first.get(0).crash(Duration.ofSeconds(10)), "A1 killed");
        Site a2 = cluster.start(kind.site("A2", SHARED_ID));
        long until = System.nanoTime() + Duration.ofMillis(2_000).toNanos();
        while (System.nanoTime() < until) {
            kind.call(a2, "A2", "C");
        }
        assertFalse(c.stderrTail().contains("two live sites"), "a restart reported as a duplicate: " + c.stderrTail());

        Site b = cluster.start(kind.site("B", SHARED_ID));
        await().atMost(BOUND).until(() -> {
            kind.call(a2, "A2", "C");
            kind.call(b, "B", "C");
            return c.stderrTail().contains(DUPLICATE);
        });
    }

    /**
     * Sites with distinct ids (configured and random) calling each other, themselves and in rings over JRMP and
     * JacORB for several refresh periods log nothing; then a site with A's id joins and is reported.
     */
    @Test
    void distinctIdsLogNothing(SiteCluster cluster) {
        List<Site> sites = cluster.start(jrmp("A", "0x00d0d0d1"), jrmp("B", null), jrmp("C", null),
                corba("D", "0x00d0d0d2"), corba("E", null));
        for (int i = 0; i < 5; i++) {
            sites.get(0).run("route", "A,B,C,A");
            sites.get(1).run("route", "B,C,B");
            sites.get(3).run("route", "D,E,D");
            await().pollDelay(Duration.ofMillis(350)).atMost(Duration.ofSeconds(1)).until(() -> true);
        }
        for (Site s : sites) {
            assertFalse(s.stderrTail().contains("two live sites") || s.stderrTail().contains("this site's own id")
                    || s.stderrTail().contains("site hello"), s.stderrTail());
        }
        Site f = cluster.start(jrmp("F", "0x00d0d0d1"));
        await().atMost(BOUND).until(() -> {
            sites.get(0).run("route", "A,B");
            f.run("route", "F,B");
            return sites.get(1).stderrTail().contains("two live sites present site id 13684945 (0x00d0d0d1)");
        });
    }

    private static String lineWith(String text, String needle) {
        return text.lines().filter(l -> l.contains(needle)).findFirst().orElse("");
    }
}
