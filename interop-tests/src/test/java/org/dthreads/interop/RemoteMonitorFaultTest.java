package org.dthreads.interop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.monitors.rmi.CounterSites;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.dthreads.junit.NetworkNamespaces;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue #10, faults of remote-monitor holders: a client holding {@code synchronized (counterStub)} is killed
 * (SIGKILL) or cut off (its namespace's link goes down). The lease (2 s here, {@code dthreads.monitor.leaseMillis}
 * at the client) expires at the counter's site, the monitor is released, waiters proceed, no entry is left;
 * a cut-off holder's next operation on the monitor fails once it is reachable again.
 */
@ExtendWith(SitesExtension.class)
class RemoteMonitorFaultTest {
    private static final long LEASE_MILLIS = 2_000;

    private static SiteSpec site(String name, Class<? extends org.dthreads.junit.SiteApp> app) {
        return SiteSpec.app(name, app).javaAgent(JrmpZigzagTest.AGENT)
                .systemProperty("dthreads.monitor.leaseMillis", Long.toString(LEASE_MILLIS));
    }

    /** {@code holder} enters the counter's monitor through its stub and stays in the block until it is killed. */
    private static void holdUntilKilled(Site holder, Site server) {
        CompletableFuture.runAsync(() -> {
            try {
                holder.run(Duration.ofSeconds(60), "holdForever");
            } catch (RuntimeException expected) {
                // the test kills the holder
            }
        });
        awaitRemoteHolder(server);
    }

    /** The lease left on the remote owner in a {@code MonitorDump} text ("lease N ms left"). */
    private static long leaseLeftMillis(String table) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("lease (\\d+) ms left").matcher(table);
        assertTrue(m.find(), "no remote lease in the server's table:\n" + table);
        return Long.parseLong(m.group(1));
    }

    private static void awaitRemoteHolder(Site server) {
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                .until(() -> server.run("table").contains("remote owner at"));
    }

    @Test
    void aKilledHoldersLeaseExpiresAndTheWaitingClientAndTheSitesOwnThreadProceed(SiteCluster cluster) throws Exception {
        List<Site> sites = cluster.start(site("S", CounterSites.Server.class), site("C1", CounterSites.Client.class),
                site("C2", CounterSites.Client.class));
        Site server = sites.get(0);
        holdUntilKilled(sites.get(1), server);
        CompletableFuture<String> remoteEntrant = CompletableFuture.supplyAsync(() -> sites.get(2).run(
                Duration.ofSeconds(60), "increment", "1"));
        CompletableFuture<String> localEntrant = CompletableFuture.supplyAsync(() -> server.run(Duration.ofSeconds(60),
                "bumpLocally", "1"));
        await().during(Duration.ofMillis(LEASE_MILLIS * 3 / 2)).atMost(Duration.ofSeconds(10))
                .until(() -> !remoteEntrant.isDone() && !localEntrant.isDone()); // excluded while the lease is renewed

        long killedAt = System.nanoTime();
        assertTrue(sites.get(1).crash(Duration.ofSeconds(10)), "C1 killed");
        assertEquals("ok", cluster.assertCompletesWithin(Duration.ofSeconds(15), remoteEntrant::join));
        assertEquals("ok", cluster.assertCompletesWithin(Duration.ofSeconds(15), localEntrant::join));
        long tookMillis = (System.nanoTime() - killedAt) / 1_000_000;
        System.out.printf("waiters proceeded %d ms after the holder was killed (lease %d ms)%n", tookMillis, LEASE_MILLIS);
        assertTrue(tookMillis <= LEASE_MILLIS + 1_500, "released within the lease: " + tookMillis + " ms");
        assertEquals("2", server.run("value"));
        assertTrue(server.monitorDump().contains("0 busy"), server.monitorDump());
    }

    @Test
    void aKilledHolderNobodyContendsForLeavesNoEntry(SiteCluster cluster) {
        List<Site> sites = cluster.start(site("S", CounterSites.Server.class), site("C1", CounterSites.Client.class));
        Site server = sites.get(0);
        holdUntilKilled(sites.get(1), server);
        long killedAt = System.nanoTime();
        assertTrue(sites.get(1).crash(Duration.ofSeconds(10)));
        await().atMost(Duration.ofMillis(LEASE_MILLIS + 2_000)).pollInterval(Duration.ofMillis(100))
                .until(() -> server.run("table").contains("0 busy"));
        System.out.printf("uncontended lease revoked %d ms after the kill%n", (System.nanoTime() - killedAt) / 1_000_000);
    }

    @Test
    void aCutOffHolderLosesTheMonitorAndItsNextOperationFailsWhenTheLinkReturns(SiteCluster cluster) {
        NetworkNamespaces.assumeAvailable();
        NetworkNamespaces net = cluster.closeWith(NetworkNamespaces.create());
        NetworkNamespaces.Namespace c1Host = net.add("C1");
        List<Site> sites = cluster.start(site("S", CounterSites.Server.class).networkNamespace(net.add("S")),
                site("C1", CounterSites.Client.class).networkNamespace(c1Host),
                site("C2", CounterSites.Client.class).networkNamespace(net.add("C2")));
        Site server = sites.get(0);
        long holdMillis = 4 * LEASE_MILLIS;
        CompletableFuture<String> holder = CompletableFuture.supplyAsync(() -> sites.get(1).run(Duration.ofSeconds(60),
                "holdThenNotify", Long.toString(holdMillis)));
        awaitRemoteHolder(server);
        long cuttingAt = System.nanoTime();
        net.cut(c1Host);
        try {
            // The lease runs from the holder's last renewal (every third of the lease), which may precede
            // the cut by up to 667 ms, and the cut takes effect while `ip` runs, before cut() returns: so
            // time since the cut says little. Ask the server how much of the lease is left once no renewal
            // can reach it any more: it must not be revoked earlier than that.
            long askedAt = System.nanoTime();
            long leftMillis = leaseLeftMillis(server.run("table"));
            long answeredAt = System.nanoTime();
            assertTrue(leftMillis >= 0 && leftMillis <= LEASE_MILLIS, leftMillis + " ms left");
            // another client gets the monitor once the cut-off holder's lease expired, while the holder is
            // still inside its block
            assertEquals("ok", cluster.assertCompletesWithin(Duration.ofSeconds(20),
                    () -> sites.get(2).run(Duration.ofSeconds(20), "increment", "1")));
            long enteredAt = System.nanoTime();
            long afterAsking = (enteredAt - askedAt) / 1_000_000;
            long afterAnswer = (enteredAt - answeredAt) / 1_000_000;
            long afterCutting = (enteredAt - cuttingAt) / 1_000_000;
            System.out.printf("C2 entered %d ms after the server had %d ms of C1's lease left, %d ms after the"
                    + " cut began (lease %d ms)%n", afterAsking, leftMillis, afterCutting, LEASE_MILLIS);
            assertTrue(afterAsking >= leftMillis, "revoked before the lease ran out: " + afterAsking + " ms after "
                    + "the server had " + leftMillis + " ms left");
            assertTrue(afterAnswer <= leftMillis + 2_000 && afterCutting <= LEASE_MILLIS + 2_000,
                    "revoked late: " + afterAnswer + " ms after the lease check, " + afterCutting + " ms after the cut");
            assertFalse(holder.isDone(), "the holder is still in its block");
        } finally {
            net.restore(c1Host);
        }
        String holderSaw = cluster.assertCompletesWithin(Duration.ofSeconds(40), holder::join);
        System.out.println("the cut-off holder's next operation: " + holderSaw);
        assertTrue(holderSaw.startsWith("IllegalMonitorStateException"), holderSaw);
        assertEquals("1", server.run("value"));
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> server.run("table").contains("0 busy"));
    }
}
