package org.dthreads.interop;

import static org.dthreads.interop.SiteDeathScenarios.awaitClean;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.faults.CorbaFaultSite;
import example.faults.JrmpFaultSite;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.dthreads.junit.DeadlockEvidence;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue #10, "thread-pool exhaustion": a zigzag needs one server thread per nested hop on every site it
 * re-enters, since each hop waits in its call while the chain goes on. A chain deeper than a server's
 * pool, and many parallel chains, must end in a clear error or complete, never hang silently.
 *
 * <ul>
 *   <li>JRMP serves each connection on its own thread, created on demand (no pool bound by default):
 *       deep chains complete, one thread per nested hop. With
 *       {@code -Dsun.rmi.transport.tcp.maxConnectionThreads} below the depth, the connection beyond
 *       the bound is closed at once and the chain ends in a {@code RemoteException}.</li>
 *   <li>JacORB dispatches from a bounded POA pool ({@code jacorb.poa.thread_pool_max}): a chain deeper
 *       than the pool hangs silently by default (the control below), and with
 *       {@code jacorb.poa.threadtimeout} it ends in {@code TIMEOUT} once no thread frees up in time.</li>
 * </ul>
 */
@ExtendWith(SitesExtension.class)
class NestedChainPoolTest {

    /** Twelve hops back into B; A re-entered as often. */
    static final String DEEP = "A,B,A,B,A,B,A,B,A,B,A,B,A,B,A,B,A,B,A,B,A,B,A,B,A";
    /** Within a pool of 4: two hops into B, two back into A. */
    static final String SHALLOW = "A,B,A,B,A";

    static SiteSpec jrmp(String name, String... jvmFlags) {
        return SiteSpec.app(name, JrmpFaultSite.class).javaAgent(JrmpZigzagTest.AGENT).jvmFlags(jvmFlags);
    }

    static SiteSpec jacorb(String name, String... orbProps) {
        String[] args = new String[orbProps.length + 1];
        args[0] = "dthreads";
        System.arraycopy(orbProps, 0, args, 1, orbProps.length);
        return SiteSpec.app(name, CorbaFaultSite.class).javaAgent(JrmpZigzagTest.AGENT).args(args);
    }

    /** JacORB with a pool of 4 request threads per POA (the root POA here). */
    static final String[] POOL_OF_4 = {"jacorb.poa.thread_pool_min=1", "jacorb.poa.thread_pool_max=4"};

    static String[] with(String[] base, String... more) {
        String[] out = Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, out, base.length, more.length);
        return out;
    }

    /** Distinct threads that served hops at {@code site} in a trail. */
    static long threadsAt(String trail, String site) {
        return Arrays.stream(trail.split(" > ")).filter(h -> h.startsWith(site + "@"))
                .map(h -> h.substring(h.indexOf('@') + 1, h.indexOf('#'))).distinct().count();
    }

    static long hopsAt(String trail, String site) {
        return Arrays.stream(trail.split(" > ")).filter(h -> h.startsWith(site + "@")).count();
    }

    // ------------------------------------------------------------------ JRMP

    @Test
    void jrmpServesEveryNestedHopOnAThreadOfItsOwnAndParallelChainsComplete(SiteCluster cluster) {
        List<Site> s = cluster.start(jrmp("A"), jrmp("B"));
        Site a = s.get(0), b = s.get(1);
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> a.run("route", DEEP));
        assertFalse(trail.startsWith("ERR"), trail);
        assertEquals(12, hopsAt(trail, "B"), trail);
        assertEquals(12, threadsAt(trail, "B"), "one connection thread per nested hop: " + trail);
        // A's step thread holds hop 0; its 12 re-entries each came on a connection thread of their own
        assertEquals(13, threadsAt(trail, "A"), trail);

        String parallel = cluster.assertCompletesWithin(Duration.ofSeconds(60), () -> a.run("parallel", SHALLOW, "16"));
        assertEquals("ok=16 err=0", parallel);
        awaitClean(a);
        awaitClean(b);
    }

    @Test
    void jrmpWithMaxConnectionThreadsBelowTheDepthFailsTheChainWithARemoteException(SiteCluster cluster) {
        List<Site> s = cluster.start(jrmp("A", "-Dsun.rmi.transport.tcp.maxConnectionThreads=4"),
                jrmp("B", "-Dsun.rmi.transport.tcp.maxConnectionThreads=4"));
        Site a = s.get(0), b = s.get(1);
        long t0 = System.nanoTime();
        String result = cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> a.run("route", DEEP));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("[pools] JRMP, maxConnectionThreads=4, 12 hops into B: " + ms + " ms, " + result);
        assertTrue(result.matches("ERR java\\.rmi\\..*"), result);
        // B closes the connection it has no thread for: the caller sees the connection fail at once
        assertTrue(result.contains("java.rmi.ConnectIOException: error during JRMP connection establishment"), result);
        assertTrue(ms < 10_000, "took " + ms + " ms");
        awaitClean(a);
        awaitClean(b);
        String shallow = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> a.run("route", SHALLOW));
        assertFalse(shallow.startsWith("ERR"), shallow);
    }

    // ------------------------------------------------------------------ JacORB

    @Test
    void jacorbChainDeeperThanThePoolHangsSilentlyByDefault(SiteCluster cluster) {
        List<Site> s = cluster.start(jacorb("A", POOL_OF_4), jacorb("B", POOL_OF_4));
        Site a = s.get(0);
        String shallow = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> a.run("route", SHALLOW));
        assertFalse(shallow.startsWith("ERR"), shallow);
        // the control: without a timeout the fifth nested request waits for a pool thread for ever
        DeadlockEvidence e = cluster.assertDeadlocksWithin(Duration.ofSeconds(3), () -> a.run("route", DEEP),
                "a POA waiting for a request thread", ev -> (ev.report("A").threadDump() + ev.report("B").threadDump())
                        .contains("RPPoolManager.getProcessor"));
        String dumps = e.report("A").threadDump() + e.report("B").threadDump();
        assertTrue(dumps.contains("RPPoolManager.getProcessor"), "a POA waits for a request thread:\n" + e);
    }

    @Test
    void jacorbChainDeeperThanThePoolEndsInTimeoutWithThreadTimeout(SiteCluster cluster) {
        String[] props = with(POOL_OF_4, "jacorb.poa.threadtimeout=1000");
        List<Site> s = cluster.start(jacorb("A", props), jacorb("B", props));
        Site a = s.get(0), b = s.get(1);
        long t0 = System.nanoTime();
        String result = cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> a.run("route", DEEP));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("[pools] JacORB, pool 4, threadtimeout=1000, 12 hops into B: " + ms + " ms, " + result);
        assertTrue(result.matches("ERR org\\.omg\\.CORBA\\.TIMEOUT.*"), result);
        assertTrue(result.contains("No request processor available to handle request"), result);
        assertTrue(ms < 10_000, "took " + ms + " ms");
        awaitClean(a);
        awaitClean(b);
        String shallow = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> a.run("route", SHALLOW));
        assertFalse(shallow.startsWith("ERR"), shallow);
        assertTrue(threadsAt(shallow, "B") == 2, shallow);
    }

    @Test
    void jacorbSixteenParallelChainsOnAPoolOfFourCompleteOrEndInTimeout(SiteCluster cluster) {
        String[] props = with(POOL_OF_4, "jacorb.poa.threadtimeout=500");
        List<Site> s = cluster.start(jacorb("A", props), jacorb("B", props));
        Site a = s.get(0), b = s.get(1);
        // one nested hop per site and chain: queued requests wait for the threads other chains free
        String oneDeep = cluster.assertCompletesWithin(Duration.ofSeconds(60), () -> a.run("parallel", "A,B,A", "16"));
        assertEquals("ok=16 err=0", oneDeep);

        // two nested hops per site and chain: 16 chains can take all 4 threads of B with first hops
        // that each wait (through A) for a second thread of B: a pool deadlock, which the thread
        // timeout turns into TIMEOUT for the chains that cannot get a thread; the others complete
        long t0 = System.nanoTime();
        String twoDeep = cluster.assertCompletesWithin(Duration.ofSeconds(60), () -> a.run("parallel", SHALLOW, "16"));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("[pools] JacORB, pool 4, threadtimeout=500, 16 parallel chains of 2 nested hops: " + ms
                + " ms, " + twoDeep);
        Matcher m = Pattern.compile("ok=(\\d+) err=(\\d+)(.*)").matcher(twoDeep);
        assertTrue(m.matches(), twoDeep);
        assertEquals(16, Integer.parseInt(m.group(1)) + Integer.parseInt(m.group(2)), twoDeep);
        if (Integer.parseInt(m.group(2)) > 0) {
            for (String err : m.group(3).trim().replaceAll("^\\[|\\]$", "").split(", ERR ")) {
                assertTrue(err.replaceFirst("^ERR ", "").startsWith("org.omg.CORBA.TIMEOUT"), "only TIMEOUTs: " + twoDeep);
            }
        }
        awaitClean(a);
        awaitClean(b);
    }

    // ------------------------------------------------------------------ bounding a call into a hung site

    @Test
    void jrmpResponseTimeoutFailsACallIntoAHungSiteAndTheCallerUnwinds(SiteCluster cluster) {
        List<Site> s = cluster.start(jrmp("A", "-Dsun.rmi.transport.tcp.responseTimeout=1000"),
                jrmp("B", "-Dsun.rmi.transport.tcp.responseTimeout=1000"), jrmp("C"));
        Site a = s.get(0), b = s.get(1), c = s.get(2);
        cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> a.run("route", "A,B,C"));
        // C hangs (at its gate) with the chain inside it; A's and B's calls time out after 1 s each
        long t0 = System.nanoTime();
        String result = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> a.run("route", "A,B,C*"));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("[pools] JRMP, responseTimeout=1000, C hung: " + ms + " ms, " + result);
        assertTrue(result.matches("ERR java\\.rmi\\..*SocketTimeoutException.*"), result);
        assertTrue(ms >= 1000 && ms < 5000, "took " + ms + " ms");
        awaitClean(a);
        awaitClean(b);
        assertEquals("1", c.run("atGate"), "C's hop still hangs, holding its monitor for the class");
        c.run("release");
        awaitClean(c);
    }

    @Test
    void jacorbPendingReplyTimeoutFailsACallIntoAHungSiteAndTheCallerUnwinds(SiteCluster cluster) {
        String timeout = "jacorb.connection.client.pending_reply_timeout=1000";
        List<Site> s = cluster.start(jacorb("A", timeout), jacorb("B", timeout), jacorb("C"));
        Site a = s.get(0), b = s.get(1), c = s.get(2);
        cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> a.run("route", "A,B,C"));
        long t0 = System.nanoTime();
        String result = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> a.run("route", "A,B,C*"));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("[pools] JacORB, pending_reply_timeout=1000, C hung: " + ms + " ms, " + result);
        assertTrue(result.matches("ERR org\\.omg\\.CORBA\\.TIMEOUT.*"), result);
        assertTrue(ms >= 1000 && ms < 5000, "took " + ms + " ms");
        awaitClean(a);
        awaitClean(b);
        assertEquals("1", c.run("atGate"), "C's hop still hangs, holding its monitor for the class");
        c.run("release");
        awaitClean(c);
    }
}
