package org.dthreads.interop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.monitors.rmi.CounterSites;
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
 * {@code synchronized (stub)}, {@code stub.wait()}, {@code Thread.holdsLock(stub)} over JRMP act on the object at
 * its site (issue #7, "Monitor operations on remote objects"): three JVMs, real registries on loopback.
 */
@ExtendWith(SitesExtension.class)
class JrmpRemoteMonitorTest {
    private static final int CLIENT_ROUNDS = 500;
    private static final int LOCAL_ROUNDS = 300;

    private static List<Site> start(SiteCluster cluster, boolean dthreads) {
        return cluster.start(spec("S", CounterSites.Server.class, dthreads), spec("C1", CounterSites.Client.class, dthreads),
                spec("C2", CounterSites.Client.class, dthreads));
    }

    private static SiteSpec spec(String name, Class<? extends org.dthreads.junit.SiteApp> app, boolean dthreads) {
        SiteSpec spec = SiteSpec.app(name, app);
        return dthreads ? spec.javaAgent(JrmpZigzagTest.AGENT) : spec;
    }

    /** Both clients' blocks and the site's own synchronized method run concurrently; returns the final value. */
    private static int raceIncrements(SiteCluster cluster, List<Site> sites) {
        return cluster.assertCompletesWithin(Duration.ofSeconds(90), () -> {
            CompletableFuture<String> c1 = CompletableFuture.supplyAsync(() -> sites.get(1).run(Duration.ofSeconds(80),
                    "increment", Integer.toString(CLIENT_ROUNDS)));
            CompletableFuture<String> c2 = CompletableFuture.supplyAsync(() -> sites.get(2).run(Duration.ofSeconds(80),
                    "increment", Integer.toString(CLIENT_ROUNDS)));
            sites.get(0).run(Duration.ofSeconds(80), "bumpLocally", Integer.toString(LOCAL_ROUNDS));
            assertEquals("ok", c1.join());
            assertEquals("ok", c2.join());
            return Integer.parseInt(sites.get(0).run("value"));
        });
    }

    @Test
    void twoClientsSynchronizedOnTheStubNeverLoseAnUpdate(SiteCluster cluster) {
        List<Site> sites = start(cluster, true);
        int value = raceIncrements(cluster, sites);
        assertEquals(2 * CLIENT_ROUNDS + LOCAL_ROUNDS, value,
                "two clients x " + CLIENT_ROUNDS + " remote blocks + " + LOCAL_ROUNDS + " local synchronized increments");
        for (Site s : sites) {
            assertTrue(s.monitorDump().contains("0 busy"), s.name() + " keeps a busy monitor:\n" + s.monitorDump());
        }
    }

    @Test
    void theSameWithTheCounterExportedOnSslSocketFactories(SiteCluster cluster) throws Exception {
        java.nio.file.Path keystore = cluster.tempDir().resolve("ssl.p12");
        Process keytool = new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "site", "-keyalg", "RSA", "-dname", "CN=localhost", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", keystore.toString(), "-storepass", "changeit")
                .redirectErrorStream(true).start();
        assertEquals(0, keytool.waitFor(), new String(keytool.getInputStream().readAllBytes()));
        List<Site> sites = cluster.start(ssl(spec("S", CounterSites.Server.class, true), keystore).systemProperty("counter.ssl", "true"),
                ssl(spec("C1", CounterSites.Client.class, true), keystore), ssl(spec("C2", CounterSites.Client.class, true), keystore));
        assertEquals(2 * CLIENT_ROUNDS + LOCAL_ROUNDS, raceIncrements(cluster, sites));
    }

    private static SiteSpec ssl(SiteSpec spec, java.nio.file.Path keystore) {
        return spec.systemProperty("javax.net.ssl.keyStore", keystore.toString())
                .systemProperty("javax.net.ssl.keyStorePassword", "changeit")
                .systemProperty("javax.net.ssl.trustStore", keystore.toString())
                .systemProperty("javax.net.ssl.trustStorePassword", "changeit");
    }

    @Test
    void theSameOnJdk25ServerAndClientNextToAJdk17Client(SiteCluster cluster) {
        java.nio.file.Path java25 = Jdk25.javaOrSkip();
        List<Site> sites = cluster.start(spec("S", CounterSites.Server.class, true).javaExecutable(java25),
                spec("C1", CounterSites.Client.class, true), spec("C2", CounterSites.Client.class, true).javaExecutable(java25));
        assertEquals(2 * CLIENT_ROUNDS + LOCAL_ROUNDS, raceIncrements(cluster, sites));
    }

    @Test
    void controlWithoutDthreadsTheStubsLockNothingAndUpdatesAreLost(SiteCluster cluster) {
        List<Site> sites = start(cluster, false);
        int value = raceIncrements(cluster, sites);
        int expected = 2 * CLIENT_ROUNDS + LOCAL_ROUNDS;
        System.out.printf("control without dthreads: %d of %d increments kept, %d lost%n", value, expected, expected - value);
        assertTrue(value < expected, "without dthreads, synchronized (stub) locks the local stub only; lost updates"
                + " expected, got " + value);
    }

    @Test
    void aClientWaitsOnTheStubAndTheSitesOwnThreadNotifiesIt(SiteCluster cluster) {
        List<Site> sites = start(cluster, true);
        CompletableFuture<String> waiter = CompletableFuture.supplyAsync(() -> sites.get(1).run(Duration.ofSeconds(60),
                "awaitSignal"));
        // the waiter's class is in the counter's wait set at the server, and the monitor is free meanwhile
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> sites.get(0).run("table").matches("(?s).*waiting: \\[[^\\]]+\\].*"));
        assertEquals("ok", sites.get(0).run(Duration.ofSeconds(10), "signal"), "the site's own synchronized method enters");
        String result = cluster.assertCompletesWithin(Duration.ofSeconds(30), waiter::join);
        assertEquals("woken; held before true, after true", result);
        assertTrue(sites.get(0).monitorDump().contains("0 busy"), sites.get(0).monitorDump());
    }

    @Test
    void aServerWithoutDthreadsRefusesWithAClearErrorInsteadOfALocalLock(SiteCluster cluster) {
        List<Site> sites = cluster.start(spec("S", CounterSites.Server.class, false), spec("C1", CounterSites.Client.class, true));
        String result = cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> sites.get(1).run("tryLock"));
        assertTrue(result.startsWith("org.dthreads.monitor.RemoteMonitorException"), result);
        assertTrue(result.contains("does not run dthreads") && result.contains("example.monitors.rmi.Counter"), result);
    }
}
