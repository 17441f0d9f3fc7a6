package org.dthreads.interop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.monitors.corba.LeaseCounterSite;
import example.monitors.rmi.LeaseSites;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 15 §1: remote monitors keep exclusion under contention with short leases. Three client JVMs each run
 * {@code synchronized (counter) { v = get(); hold 900 ms; set(v + 1); }} six times on one server object with
 * a 1.5 s lease, so each client waits for the monitor much longer than its lease. Every update is kept and
 * the server never sees two clients inside the block (it counts them: {@code get} enters, {@code set}
 * leaves). Before the fix a lease counted from the start of the wait: 13-14 of 18 kept, up to 3 inside.
 */
@ExtendWith(SitesExtension.class)
class RemoteLeaseContentionTest {
    static final String LEASE_MILLIS = "1500";
    static final int CLIENTS = 3;
    static final int ROUNDS = 6;
    static final String HOLD_MILLIS = "900";

    private static SiteSpec withAgent(SiteSpec spec) {
        return spec.javaAgent(JrmpZigzagTest.AGENT).systemProperty("dthreads.monitor.leaseMillis", LEASE_MILLIS);
    }

    @Test
    void jrmpClientsWaitingLongerThanTheirLeaseKeepEveryUpdateAndNeverOverlap(SiteCluster cluster) {
        List<SiteSpec> specs = new ArrayList<>();
        specs.add(withAgent(SiteSpec.app("S", LeaseSites.Server.class)));
        for (int i = 1; i <= CLIENTS; i++) {
            specs.add(withAgent(SiteSpec.app("C" + i, LeaseSites.Client.class)));
        }
        List<Site> sites = cluster.start(specs.toArray(SiteSpec[]::new));
        runTogether(cluster, sites, site -> site.run(Duration.ofSeconds(100), "slowIncrements", Integer.toString(ROUNDS),
                HOLD_MILLIS));
        assertEquals((CLIENTS * ROUNDS) + " 1", sites.get(0).run("state"),
                "value and most clients inside the block at once, at the server");
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> sites.get(0).run("table").contains("0 busy"));
    }

    @Test
    void jacorbClientsWaitingLongerThanTheirLeaseKeepEveryUpdateAndNeverOverlap(SiteCluster cluster) {
        List<SiteSpec> specs = new ArrayList<>();
        specs.add(withAgent(SiteSpec.app("S", LeaseCounterSite.class)).args("server", "dthreads"));
        for (int i = 1; i <= CLIENTS; i++) {
            specs.add(withAgent(SiteSpec.app("C" + i, LeaseCounterSite.class)).args("client", "dthreads"));
        }
        List<Site> sites = cluster.start(specs.toArray(SiteSpec[]::new));
        runTogether(cluster, sites, site -> site.run(Duration.ofSeconds(100), "slowIncrements", "S",
                Integer.toString(ROUNDS), HOLD_MILLIS));
        assertEquals((CLIENTS * ROUNDS) + " 1", sites.get(0).run("state"),
                "value and most clients inside the block at once, at the server");
    }

    /** Runs {@code step} on every client (sites 1..) at once and checks each said "ok". */
    private static void runTogether(SiteCluster cluster, List<Site> sites, java.util.function.Function<Site, String> step) {
        cluster.assertCompletesWithin(Duration.ofSeconds(110), () -> {
            List<CompletableFuture<String>> runs = new ArrayList<>();
            for (Site client : sites.subList(1, sites.size())) {
                runs.add(CompletableFuture.supplyAsync(() -> step.apply(client)));
            }
            for (CompletableFuture<String> run : runs) {
                assertEquals("ok", run.join());
            }
            return null;
        });
    }
}
