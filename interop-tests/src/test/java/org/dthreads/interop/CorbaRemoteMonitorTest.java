package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.monitors.corba.CounterSite;
import example.monitors.corba.RmiIiopCounterSite;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Remote monitors over IIOP ({@code docs/remote-monitors.md}, {@code docs/wire-format.md} "Remote monitor
 * operations over IIOP"), separate JVMs on loopback: {@code synchronized (stub)} and {@code stub.wait()} in
 * rewritten client code act on the servant at its site.
 */
@ExtendWith(SitesExtension.class)
class CorbaRemoteMonitorTest {

    static final int TIMES = 500;

    static SiteSpec site(String name, Class<? extends org.dthreads.junit.SiteApp> app, boolean dthreads, String role) {
        SiteSpec spec = SiteSpec.app(name, app);
        return dthreads ? spec.javaAgent(JrmpZigzagTest.AGENT).args(role, "dthreads") : spec.args(role);
    }

    /** Both clients' loops, started together (they meet at a gate), then the server's value. */
    static int incrementTogether(Site server, Site c1, Site c2, String round) throws Exception {
        CompletableFuture<String> one = CompletableFuture.supplyAsync(
                () -> c1.run("increment", server.name(), Integer.toString(TIMES), c2.name(), round));
        CompletableFuture<String> two = CompletableFuture.supplyAsync(
                () -> c2.run("increment", server.name(), Integer.toString(TIMES), c1.name(), round));
        one.get(60, TimeUnit.SECONDS);
        two.get(60, TimeUnit.SECONDS);
        return Integer.parseInt(server.run("value"));
    }

    @Test
    void twoClientsSynchronizedOnAJacorbStubLoseNoUpdate(SiteCluster cluster) {
        List<Site> sites = cluster.start(site("S", CounterSite.class, true, "server"),
                site("C1", CounterSite.class, true, "client"), site("C2", CounterSite.class, true, "client"));
        int value = cluster.assertCompletesWithin(Duration.ofSeconds(90),
                () -> incrementTogether(sites.get(0), sites.get(1), sites.get(2), "0"));
        assertEquals(2 * TIMES, value, "with dthreads, synchronized (stub) excludes at the servant's site");
        String dump = sites.get(0).monitorDump();
        assertTrue(!dump.contains("remote owner"), "no lease left at the site: " + dump);
    }

    @Test
    void controlWithoutDthreadsLosesUpdates(SiteCluster cluster) {
        List<Site> sites = cluster.start(site("S", CounterSite.class, false, "server"),
                site("C1", CounterSite.class, false, "client"), site("C2", CounterSite.class, false, "client"));
        // synchronized (stub) locks each client's own stub: no exclusion between the JVMs. A round without
        // a lost update is possible in principle (no overlap of the two loops), so up to three rounds.
        int expected = 0;
        int lost = 0;
        for (int round = 0; round < 3 && lost == 0; round++) {
            String r = Integer.toString(round);
            expected += 2 * TIMES;
            int value = cluster.assertCompletesWithin(Duration.ofSeconds(90),
                    () -> incrementTogether(sites.get(0), sites.get(1), sites.get(2), r));
            lost = expected - value;
            System.out.println("control round " + round + ": counter " + value + " of " + expected + ", " + lost
                    + " updates lost");
        }
        assertTrue(lost > 0, "without dthreads the two clients' read-modify-writes must interleave");
    }

    @Test
    void aClientWaitsOnTheServantAndTheServantsSiteNotifiesIt(SiteCluster cluster) throws Exception {
        List<Site> sites = cluster.start(site("S", CounterSite.class, true, "server"),
                site("C", CounterSite.class, true, "client"));
        Site server = sites.get(0);
        Site client = sites.get(1);
        String result = cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> {
            CompletableFuture<String> waiter = CompletableFuture.supplyAsync(() -> client.run("waitForBump", "S"));
            client.endpoint("waiting", Duration.ofSeconds(20)); // inside synchronized (stub), before wait
            // blocks at the site until the client's wait releases the servant's monitor, then notifies it
            assertEquals("bumped", server.run("bump"));
            return waiter.get(20, TimeUnit.SECONDS);
        });
        System.out.println("wait/notify: " + result);
        assertTrue(result.startsWith("woken after 1 wait(s), value 1, holdsLock true"), result);
    }

    @Test
    void rmiIiopStubsOnTheGlassFishOrbLoseNoUpdate(SiteCluster cluster) {
        List<Site> sites = cluster.start(site("S", RmiIiopCounterSite.class, true, "server"),
                site("C1", RmiIiopCounterSite.class, true, "client"), site("C2", RmiIiopCounterSite.class, true, "client"));
        int value = cluster.assertCompletesWithin(Duration.ofSeconds(120), () -> {
            CompletableFuture<String> one = CompletableFuture.supplyAsync(
                    () -> sites.get(1).run("increment", "S", Integer.toString(TIMES), "C2"));
            CompletableFuture<String> two = CompletableFuture.supplyAsync(
                    () -> sites.get(2).run("increment", "S", Integer.toString(TIMES), "C1"));
            System.out.println("RMI-IIOP clients: " + one.get(100, TimeUnit.SECONDS) + "; " + two.get(100, TimeUnit.SECONDS));
            return Integer.parseInt(sites.get(0).run("value"));
        });
        assertEquals(2 * TIMES, value);
    }

    @Test
    void synchronizedOnAStubOfASiteWithoutDthreadsFailsPromptly(SiteCluster cluster) {
        List<Site> sites = cluster.start(site("S", CounterSite.class, false, "server"),
                site("C", CounterSite.class, true, "client"));
        String ior = sites.get(0).endpoint("ior", Duration.ofSeconds(20));
        String result = cluster.assertCompletesWithin(Duration.ofSeconds(10), () -> sites.get(1).run("lockOnce", ior));
        System.out.println("site without dthreads: " + result);
        assertTrue(result.startsWith("org.dthreads.monitor.RemoteMonitorException: "), result);
        assertTrue(result.contains("does not run dthreads"), result);
        assertTrue(result.contains("IDL:example/monitors/Counter:1.0 at 127.0.0.1:"), "names the reference: " + result);
    }
}
