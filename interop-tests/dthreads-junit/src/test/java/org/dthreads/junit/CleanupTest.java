package org.dthreads.junit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.dthreads.junit.fixtures.AbandoningTestJvm;
import org.dthreads.junit.fixtures.HarnessApps;
import org.dthreads.junit.fixtures.ZigzagSiteA;
import org.dthreads.junit.fixtures.ZigzagSiteB;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Nothing the kit starts outlives the test: processes, their children, temp dirs. */
class CleanupTest {

    private static boolean gone(long pid) {
        return ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true);
    }

    @Test
    void closeKillsSitesTheirChildrenAndDeletesTheTempDir() {
        SiteCluster cluster = new SiteCluster();
        List<Site> sites = cluster.start(SiteSpec.app("A", HarnessApps.Idle.class),
                SiteSpec.app("B", HarnessApps.WithChildProcess.class));
        long child = Long.parseLong(sites.get(1).endpoint("child.pid"));
        List<Long> pids = List.of(sites.get(0).pid(), sites.get(1).pid(), child);
        Path temp = cluster.tempDir();
        assertTrue(Files.isDirectory(temp));
        assertTrue(pids.stream().noneMatch(CleanupTest::gone), "all running");

        cluster.close();

        for (long pid : pids) {
            assertTrue(gone(pid), "pid " + pid + " gone");
        }
        assertFalse(Files.exists(temp), "temp dir deleted");
        cluster.close(); // idempotent
    }

    @Test
    void deadlockedSitesAreKilledByTheDeadlockAssertion() {
        try (SiteCluster cluster = new SiteCluster()) {
            List<Site> s = cluster.start(SiteSpec.app("A", ZigzagSiteA.class), SiteSpec.app("B", ZigzagSiteB.class));
            cluster.assertDeadlocksWithin(Duration.ofSeconds(1), () -> s.get(0).run("zigzag"));
            for (Site site : s) {
                assertTrue(gone(site.pid()), site + " gone");
            }
        }
    }

    /**
     * A test JVM that exits without closing (shutdown hook) or is killed with SIGKILL (no hook can
     * run: each site ends itself when its stdin closes) leaves no site, no site child and no temp dir.
     */
    @ParameterizedTest
    @ValueSource(strings = {"exit", "wait"})
    void sitesDoNotOutliveTheTestJvm(String mode) throws Exception {
        Process driver = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                AbandoningTestJvm.class.getName(), mode).redirectErrorStream(true).start();
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(driver.getInputStream(), StandardCharsets.UTF_8));
            CompletableFuture<String> pidsLine = CompletableFuture.supplyAsync(() -> {
                List<String> seen = new ArrayList<>();
                try {
                    String line;
                    while ((line = r.readLine()) != null) {
                        if (line.startsWith("PIDS ")) {
                            return line;
                        }
                        seen.add(line);
                    }
                } catch (IOException e) {
                    seen.add(e.toString());
                }
                throw new IllegalStateException("driver ended without PIDS: " + seen);
            });
            String[] f = pidsLine.get(30, TimeUnit.SECONDS).split(" ");
            List<Long> pids = List.of(Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
            Path temp = Path.of(f[4]);
            assertTrue(pids.stream().noneMatch(CleanupTest::gone), "all running before the driver ends");
            if (mode.equals("wait")) {
                driver.destroyForcibly(); // SIGKILL: no shutdown hook
            }
            assertTrue(driver.waitFor(20, TimeUnit.SECONDS));
            await("sites of the dead test JVM to end").atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(50)).until(() -> pids.subList(0, 2).stream().allMatch(CleanupTest::gone));
            await("the site's child process to end").atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(50)).until(() -> gone(pids.get(2)));
            if (mode.equals("wait")) {
                // SIGKILL let no hook run: the next cluster created by any test JVM sweeps the temp dir
                new SiteCluster().close();
            }
            assertFalse(Files.exists(temp), "temp dir deleted");
        } finally {
            driver.destroyForcibly();
        }
    }
}
