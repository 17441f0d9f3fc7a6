package org.dthreads.interop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.forged.ForgerSites;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.dthreads.ThreadClass;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue #10, forged identity over JRMP: while S's thread H (class T) holds the vault's monitor and is in an
 * outgoing call — exactly when a callback of class T may act as the owner — an unrelated client F sends other
 * classes (random, guesses at S's counter) and random lease tokens. It cannot enter, release, wait on or
 * notify the monitor; every refused protocol request is logged at S with F's address.
 */
@ExtendWith(SitesExtension.class)
class ForgedIdentityTest {

    @Test
    void anUnrelatedClientWithForgedClassesAndTokensGainsNothing(SiteCluster cluster) {
        List<Site> sites = cluster.start(SiteSpec.app("S", ForgerSites.S.class).javaAgent(JrmpZigzagTest.AGENT),
                SiteSpec.app("F", ForgerSites.F.class).javaAgent(JrmpZigzagTest.AGENT));
        Site s = sites.get(0);
        Site f = sites.get(1);
        int sSite = Integer.parseInt(s.endpoint("site"));
        long random = ThreadClass.of(ThreadLocalRandom.current().nextInt(1, Integer.MAX_VALUE), 7);
        long guess1 = ThreadClass.of(sSite, 1);
        long guess2 = ThreadClass.of(sSite, 2);
        String randomToken = Long.toHexString(ThreadLocalRandom.current().nextLong() | 1);

        CompletableFuture<String> hold = CompletableFuture.supplyAsync(() -> s.run(Duration.ofSeconds(30), "hold", "4000"));
        await().atMost(Duration.ofSeconds(10)).until(() -> s.run("events").contains("H holds"));

        // through the identity channel: twin calls of a synchronized method, bound to forged classes
        for (long forged : new long[] {random, guess1, guess2}) {
            assertEquals("sent", f.run("touchAs", "forger", Long.toHexString(forged)));
        }
        // through the remote-monitor protocol
        String hex = Long.toHexString(random);
        String notify = f.run("opAs", op(RemoteMonitorSite.NOTIFY), hex, "0", "5000", "0");
        String notifyAllGuessed = f.run("opAs", op(RemoteMonitorSite.NOTIFY_ALL), Long.toHexString(guess1), "0", "5000", "0");
        String await = f.run("opAs", op(RemoteMonitorSite.WAIT), hex, "0", "5000", "10");
        String exit = f.run("opAs", op(RemoteMonitorSite.EXIT), hex, randomToken, "5000", "0");
        String renew = f.run("opAs", op(RemoteMonitorSite.RENEW), hex, randomToken, "5000", "0");
        String enter = f.run("opAs", op(RemoteMonitorSite.ENTER), hex, "0", "1000", "500");
        String stillHeld = s.run("events");

        for (String refused : List.of(notify, notifyAllGuessed, await, exit)) {
            assertTrue(refused.startsWith("IllegalMonitorStateException"), refused);
        }
        assertEquals("returned 0", renew, "a random token renews nothing");
        assertEquals("blocked", enter, "a forged class is an ordinary contender");
        assertFalse(stillHeld.contains("H releases") || stillHeld.contains("touch"),
                "H kept the monitor throughout: " + stillHeld);

        assertEquals("held", cluster.assertCompletesWithin(Duration.ofSeconds(20), hold::join));
        await().atMost(Duration.ofSeconds(10)).until(() -> s.run("events").split(" \\| ").length == 5);
        List<String> events = Arrays.asList(s.run("events").split(" \\| "));
        assertEquals(List.of("H holds", "H releases"), events.subList(0, 2), "forged touches ran only after: " + events);
        assertTrue(s.stderrTail().contains("refused remote monitor operation"), s.stderrTail());
        assertTrue(s.stderrTail().contains("from 127.0.0.1"), "the refusal names the peer: " + s.stderrTail());
    }

    /**
     * The same over IIOP (JacORB): while client C1 holds the servant's monitor under a lease, an unrelated
     * client F sends crafted {@code _dthreads_monitor} requests with made-up classes and tokens.
     */
    @Test
    void overIiopForgedClassesAndTokensGainNothing(SiteCluster cluster) {
        List<Site> sites = cluster.start(CorbaRemoteMonitorTest.site("S", example.monitors.corba.CounterSite.class, true,
                "server"), CorbaRemoteMonitorTest.site("C1", example.monitors.corba.CounterSite.class, true, "client"),
                CorbaRemoteMonitorTest.site("F", example.monitors.corba.CounterSite.class, true, "client"));
        Site s = sites.get(0);
        Site f = sites.get(2);
        CompletableFuture<String> hold = CompletableFuture.supplyAsync(() -> sites.get(1).run(Duration.ofSeconds(30),
                "holdFor", "S", "4000"));
        await().atMost(Duration.ofSeconds(10)).until(() -> s.monitorDump().contains("remote owner"));
        String hex = Long.toHexString(ThreadClass.of(ThreadLocalRandom.current().nextInt(1, Integer.MAX_VALUE), 3));
        String token = Long.toHexString(ThreadLocalRandom.current().nextLong() | 1);
        List<String> refused = List.of(
                f.run("forge", "S", op(RemoteMonitorSite.NOTIFY), hex, "0", "5000", "0"),
                f.run("forge", "S", op(RemoteMonitorSite.WAIT), hex, "0", "5000", "10"),
                f.run("forge", "S", op(RemoteMonitorSite.EXIT), hex, token, "5000", "0"),
                f.run("forge", "S", op(RemoteMonitorSite.NOTIFY_ALL), hex, token, "5000", "0"));
        for (String r : refused) {
            assertTrue(r.startsWith("IllegalMonitorStateException"), r);
        }
        assertEquals("returned 0", f.run("forge", "S", op(RemoteMonitorSite.RENEW), hex, token, "5000", "0"));
        assertEquals("blocked", f.run("forge", "S", op(RemoteMonitorSite.ENTER), hex, "0", "1000", "500"));
        assertFalse(hold.isDone(), "C1 still holds the monitor");
        assertEquals("held", cluster.assertCompletesWithin(Duration.ofSeconds(20), hold::join));
        assertTrue(s.stderrTail().contains("refused remote monitor operation"), s.stderrTail());
        assertTrue(s.stderrTail().contains("from iiop /127.0.0.1:"), "the refusal names the peer's address: " + s.stderrTail());
    }

    /**
     * The limit of the causality rule, shown: a peer that knows the holder's class value (a peer inside the
     * chain, or one the value leaked to) acts as that logical thread while it is suspended. Class values are
     * not guessable from outside (random site id and counter origin per incarnation), not secret from peers.
     */
    @Test
    void aPeerThatKnowsTheHoldersClassActsAsIt(SiteCluster cluster) {
        List<Site> sites = cluster.start(SiteSpec.app("S", ForgerSites.S.class).javaAgent(JrmpZigzagTest.AGENT),
                SiteSpec.app("F", ForgerSites.F.class).javaAgent(JrmpZigzagTest.AGENT));
        Site s = sites.get(0);
        CompletableFuture<String> hold = CompletableFuture.supplyAsync(() -> s.run(Duration.ofSeconds(30), "hold", "3000"));
        await().atMost(Duration.ofSeconds(10)).until(() -> s.run("events").contains("H holds"));
        sites.get(1).run("touchAs", "insider", s.run("holderClass"));
        await().atMost(Duration.ofSeconds(2)).until(() -> s.run("events").contains("touch by insider"));
        assertFalse(s.run("events").contains("H releases"), "the insider entered while H held the monitor");
        assertEquals("held", cluster.assertCompletesWithin(Duration.ofSeconds(20), hold::join));
    }

    private static String op(int code) {
        return Integer.toString(code);
    }
}
