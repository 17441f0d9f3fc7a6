package org.dthreads.interop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.monitors.rmi.LeaseSites;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 15 §2, over JRMP with real JVMs: a hostile or broken client cannot lock an object for ever. The site
 * bounds every lease ({@code -Ddthreads.monitor.maxLeaseMillis}, 2 s here), so a client that asked for
 * {@code Long.MAX_VALUE} ms and was SIGKILLed inside the block loses the monitor within the bound; and
 * {@code -Ddthreads.monitor.remote} refuses remote monitor operations on chosen classes.
 */
@ExtendWith(SitesExtension.class)
class RemoteLeaseBoundTest {
    private static final long MAX_LEASE_MILLIS = 2_000;

    private static SiteSpec site(String name, Class<? extends org.dthreads.junit.SiteApp> app) {
        return SiteSpec.app(name, app).javaAgent(JrmpZigzagTest.AGENT);
    }

    @Test
    void aKilledClientThatAskedForAnEndlessLeaseLosesTheMonitorWithinTheSitesBound(SiteCluster cluster) {
        List<Site> sites = cluster.start(
                site("S", LeaseSites.Server.class).systemProperty("dthreads.monitor.maxLeaseMillis",
                        Long.toString(MAX_LEASE_MILLIS)),
                site("C1", LeaseSites.Client.class).systemProperty("dthreads.monitor.leaseMillis",
                        Long.toString(Long.MAX_VALUE)),
                site("C2", LeaseSites.Client.class));
        Site server = sites.get(0);
        CompletableFuture.runAsync(() -> {
            try {
                sites.get(1).run(Duration.ofSeconds(60), "holdForever");
            } catch (RuntimeException expected) {
                // the test kills the holder
            }
        });
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                .until(() -> server.run("table").contains("remote owner at"));
        CompletableFuture<String> waiter = CompletableFuture.supplyAsync(() -> sites.get(2).run(Duration.ofSeconds(60),
                "timedLock"));
        long killedAt = System.nanoTime();
        assertTrue(sites.get(1).crash(Duration.ofSeconds(10)), "C1 killed");
        String entered = cluster.assertCompletesWithin(Duration.ofSeconds(15), waiter::join);
        long tookMillis = (System.nanoTime() - killedAt) / 1_000_000;
        System.out.printf("the waiter entered %d ms after the holder of an endless lease was killed (site bound %d ms)%n",
                tookMillis, MAX_LEASE_MILLIS);
        assertTrue(entered.startsWith("entered after"), entered);
        assertTrue(tookMillis <= MAX_LEASE_MILLIS + 2_000, "released within the site's bound: " + tookMillis + " ms");
    }

    @Test
    void aSiteRefusesRemoteMonitorOperationsOnTheClassesItsPolicyNames(SiteCluster cluster) {
        List<Site> sites = cluster.start(
                site("S", LeaseSites.Server.class).systemProperty("dthreads.monitor.remote", "-example.monitors.rmi.*"),
                site("C1", LeaseSites.Client.class));
        String result = cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> sites.get(1).run("timedLock"));
        assertTrue(result.startsWith("org.dthreads.monitor.RemoteMonitorException")
                && result.contains("example.monitors.rmi.LeaseSites$WatchedCounter")
                && result.contains("dthreads.monitor.remote"), result);
    }
}
