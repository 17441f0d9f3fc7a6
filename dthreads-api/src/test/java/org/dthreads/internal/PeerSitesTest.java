package org.dthreads.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.dthreads.internal.PeerSites.Observation;
import org.junit.jupiter.api.Test;

class PeerSitesTest {

    private static final long WINDOW = 1_000;
    private final AtomicLong clock = new AtomicLong(5_000_000);
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final PeerSites peers = new PeerSites(1, 0x1111, WINDOW, clock::get,
            new RateLimitedLog((level, line) -> lines.add(line), 0, clock::get));

    @Test
    void aSiteSeenAgainWithTheSameIncarnationIsKnown() {
        assertEquals(Observation.NEW, peers.observe(7, 0xaaaa, "10.0.0.7:1099"));
        assertEquals(Observation.KNOWN, peers.observe(7, 0xaaaa, "10.0.0.7:1099"));
        assertEquals(Observation.KNOWN, peers.observe(7, 0, "10.0.0.7:1099"), "unknown incarnation");
        assertTrue(lines.isEmpty());
    }

    @Test
    void aNewIncarnationAfterTheOldOneFellSilentIsARestart() {
        peers.observe(7, 0xaaaa, "10.0.0.7:1099");
        clock.addAndGet(WINDOW + 1);
        assertEquals(Observation.RESTARTED, peers.observe(7, 0xbbbb, "10.0.0.7:1099"));
        assertEquals(Observation.KNOWN, peers.observe(7, 0xbbbb, "10.0.0.7:1099"));
        assertTrue(lines.isEmpty(), lines::toString);
    }

    @Test
    void aQuickRestartIsNotADuplicate() {
        peers.observe(7, 0xaaaa, "10.0.0.7:1099");
        clock.addAndGet(1);
        assertEquals(Observation.RESTARTED, peers.observe(7, 0xbbbb, "10.0.0.7:1099"));
        clock.addAndGet(WINDOW / 2);
        assertEquals(Observation.KNOWN, peers.observe(7, 0xbbbb, "10.0.0.7:1099"));
        assertEquals(Observation.RESTARTED, peers.observe(7, 0xcccc, "10.0.0.7:1099"), "restarted again");
        assertEquals(Observation.KNOWN, peers.observe(7, 0xcccc, "10.0.0.7:1099"));
        assertTrue(lines.isEmpty(), lines::toString);
    }

    @Test
    void twoLiveIncarnationsOfOneSiteIdAreDetectedAndLoggedWithBothPeers() {
        peers.observe(7, 0xaaaa, "hostA:1099");
        clock.addAndGet(WINDOW / 2);
        assertEquals(Observation.RESTARTED, peers.observe(7, 0xbbbb, "hostB:1099"), "could be a restart");
        assertTrue(lines.isEmpty(), lines::toString);
        clock.addAndGet(WINDOW * 3);
        assertEquals(Observation.DUPLICATE, peers.observe(7, 0xaaaa, "hostA:1099"), "the old life is still alive");
        assertEquals(1, lines.size());
        String line = lines.get(0);
        assertTrue(line.contains("two live sites present site id 7") && line.contains("hostA:1099")
                && line.contains("hostB:1099") && line.contains("-Ddthreads.site"), line);
        assertEquals(Observation.DUPLICATE, peers.observe(7, 0xbbbb, "hostB:1099"), "each alternation");
        assertEquals(Observation.KNOWN, peers.observe(7, 0xbbbb, "hostB:1099"));
    }

    @Test
    void aPeerPresentingOurOwnSiteIdIsDetected() {
        assertEquals(Observation.KNOWN, peers.observe(1, 0x1111, "loopback"));
        assertEquals(Observation.DUPLICATE_OF_SELF, peers.observe(1, 0x2222, "hostB:1099"));
        assertTrue(lines.get(0).contains("this site's own id"), lines::toString);
    }

    @Test
    void siteIdZeroIsIgnored() {
        assertEquals(Observation.IGNORED, peers.observe(0, 0xaaaa, "x"));
    }

    @Test
    void theTableIsBoundedButStaleSitesMakeRoom() {
        for (int i = 1; i <= PeerSites.MAX_SITES; i++) {
            peers.observe(1000 + i, i, "p");
        }
        assertEquals(Observation.IGNORED, peers.observe(99, 1, "flooder"));
        clock.addAndGet(WINDOW + 1);
        assertEquals(Observation.NEW, peers.observe(99, 1, "later"));
    }
}
