package org.dthreads.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import org.dthreads.junit.fixtures.HarnessApps;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Tests of the harness itself: sites that crash, hang, print garbage or die mid-scenario. */
@ExtendWith(SitesExtension.class)
class MisbehavingSiteTest {

    /** A cluster whose sites must be ready within 3 s, for the tests of sites that never are. */
    private static SiteCluster impatient() {
        return SiteCluster.builder().readyTimeout(Duration.ofSeconds(3)).build();
    }

    @Test
    void siteThatThrowsAtStartFailsTheTestWithItsStderrTail(SiteCluster cluster) {
        AssertionError e = assertThrows(AssertionError.class,
                () -> cluster.start(SiteSpec.app("ok", HarnessApps.Idle.class),
                        SiteSpec.app("crash", HarnessApps.CrashAtStart.class)));
        String m = e.getMessage();
        assertTrue(m.startsWith("site crash died before it was ready"), m);
        assertTrue(m.contains("exited unexpectedly with code 70"), m);
        assertTrue(m.contains("loading configuration from /nonexistent/site.conf"), m);
        assertTrue(m.contains("IllegalStateException: boom: configuration missing"), m);
        assertTrue(m.contains("at org.dthreads.junit.fixtures.HarnessApps$CrashAtStart.start"), m);
        // the healthy site of the same batch was killed too
        assertFalse(cluster.site("ok").isAlive());
    }

    @Test
    void siteThatExitsAtStartFailsWithExitCodeAndStderr(SiteCluster cluster) {
        AssertionError e = assertThrows(AssertionError.class,
                () -> cluster.start(SiteSpec.app("exit3", HarnessApps.ExitAtStart.class)));
        assertTrue(e.getMessage().contains("with code 3"), e.getMessage());
        assertTrue(e.getMessage().contains("fatal: cannot bind, giving up"), e.getMessage());
    }

    @Test
    void siteWhoseMainClassIsMissingFails(SiteCluster cluster) {
        AssertionError e = assertThrows(AssertionError.class,
                () -> cluster.start(SiteSpec.main("nomain", "org.example.DoesNotExist")));
        assertTrue(e.getMessage().contains("ClassNotFoundException: org.example.DoesNotExist"), e.getMessage());
    }

    @Test
    void siteThatNeverBecomesReadyFailsAfterTheReadyTimeoutWithItsDump() {
        try (SiteCluster cluster = impatient()) {
            neverReady(cluster);
        }
    }

    private static void neverReady(SiteCluster cluster) {
        long t0 = System.nanoTime();
        AssertionError e = assertThrows(AssertionError.class,
                () -> cluster.start(SiteSpec.app("hang", HarnessApps.HangBeforeReady.class)));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        String m = e.getMessage();
        assertTrue(m.startsWith("site hang was not ready within"), m);
        assertTrue(m.contains("HarnessApps$HangBeforeReady.waitForeverBeforeReady"), m);
        assertTrue(ms >= 2900 && ms < 15_000, "failed after " + ms + " ms");
        assertFalse(cluster.site("hang").isAlive(), "killed after the failure");
    }

    @Test
    void eachSiteOfABatchGetsTheWholeReadyTimeout() {
        // A takes most of the bound; B, launched with it, gets going only once A is ready (as on a starved machine,
        // where the sites of a batch start slowly together) and then needs half the bound. With one deadline for the
        // batch B had only what A left of it.
        try (SiteCluster cluster = SiteCluster.builder().readyTimeout(Duration.ofSeconds(10)).build()) {
            List<Site> s = cluster.start(SiteSpec.app("A", HarnessApps.SlowToStart.class).args("-", "6000"),
                    SiteSpec.app("B", HarnessApps.SlowToStart.class).args("A", "5000"));
            long bMs = s.get(1).startupTime().orElseThrow().toMillis();
            assertTrue(bMs > 10_000, "B needed more than the bound from its launch: " + bMs + " ms");
        }
    }

    @Test
    void aSiteNotReadyAfterASlowOneFailsWithItsOwnBoundAndDump() {
        try (SiteCluster cluster = impatient()) {
            long t0 = System.nanoTime();
            AssertionError e = assertThrows(AssertionError.class,
                    () -> cluster.start(SiteSpec.app("slow", HarnessApps.SlowToStart.class).args("-", "2000"),
                            SiteSpec.app("hang", HarnessApps.HangBeforeReady.class)));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            String m = e.getMessage();
            assertTrue(m.startsWith("site hang was not ready within 3000 ms (counted from when the cluster began"
                    + " waiting for it, "), m);
            assertTrue(m.contains(" ms after its launch)"), m);
            assertTrue(m.contains("HarnessApps$HangBeforeReady.waitForeverBeforeReady"), m);
            assertTrue(ms >= 4900, "hang had its own 3 s after slow's 2 s: failed after " + ms + " ms");
            assertFalse(cluster.site("slow").isAlive(), "the whole batch killed after the failure");
        }
    }

    @Test
    void unresponsiveSiteIsDumpedFromOutsideWithJcmd() {
        try (SiteCluster cluster = impatient()) {
            unresponsive(cluster);
        }
    }

    private static void unresponsive(SiteCluster cluster) {
        AssertionError e = assertThrows(AssertionError.class, () -> cluster.start(
                SiteSpec.app("mute", HarnessApps.HangBeforeReady.class).controlChannel(false)));
        String m = e.getMessage();
        assertTrue(m.contains("(taken from outside with "), m);
        assertTrue(m.contains("waitForeverBeforeReady"), m);
        assertTrue(m.contains("no control channel up"), m);
    }

    @Test
    void garbageOutputIsIgnoredAndTheSiteStillWorks(SiteCluster cluster) {
        Site g = cluster.start(SiteSpec.app("garbage", HarnessApps.Garbage.class));
        assertEquals("hello world = 100% \u00e9\nsecond line", g.endpoint("greeting"));
        assertFalse(g.endpoints().containsKey("spoof"));
        assertFalse(g.endpoints().containsKey("x"));
        assertEquals("a b|c=d|", g.run(Duration.ofSeconds(5), "echo", "a b", "c=d", ""));
        String out = g.stdoutTail();
        assertTrue(out.contains("noise line 499"), out);
        assertTrue(out.contains("more chars]"), "overlong line truncated in the tail");
        assertTrue(g.stderrTail().contains("some stderr noise"), g.stderrTail());
        assertTrue(g.isAlive());
    }

    @Test
    void siteThatExitsMidScenarioFailsTheAssertionWithItsStderrTail(SiteCluster cluster) {
        List<Site> s = cluster.start(SiteSpec.app("stable", HarnessApps.Idle.class),
                SiteSpec.app("dying", HarnessApps.ExitMidScenario.class));
        long t0 = System.nanoTime();
        AssertionError e = assertThrows(AssertionError.class,
                () -> cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> s.get(1).run("work-then-die")));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        String m = e.getMessage();
        assertTrue(m.startsWith("site dying died during the scenario (exit code 42"), m);
        assertTrue(m.contains("about to die in the middle of the scenario"), m);
        assertTrue(ms < 10_000, "failed fast, not after the bound: " + ms + " ms");
        assertFalse(s.get(0).isAlive(), "other sites killed");
    }

    @Test
    void stepThatHangsFailsTheCompletionAssertionWithItsStack(SiteCluster cluster) {
        Site s = cluster.start(SiteSpec.app("slow", HarnessApps.ExitMidScenario.class));
        AssertionError e = assertThrows(AssertionError.class,
                () -> cluster.assertCompletesWithin(Duration.ofSeconds(1), () -> s.run("sleep", "60000")));
        String m = e.getMessage();
        assertTrue(m.startsWith("Scenario did not complete within 1000 ms"), m);
        assertTrue(m.contains("\"dthreads-step-sleep-"), m);
        assertTrue(m.contains("org.dthreads.junit.Site.run"), "test-side scenario stack: " + m);
        assertFalse(s.isAlive());
    }

    @Test
    void crashIsNotAcceptedAsADeadlock(SiteCluster cluster) {
        Site s = cluster.start(SiteSpec.app("dying", HarnessApps.ExitMidScenario.class));
        AssertionError e = assertThrows(AssertionError.class,
                () -> cluster.assertDeadlocksWithin(Duration.ofSeconds(10), () -> s.run("work-then-die")));
        assertTrue(e.getMessage().startsWith("Expected a deadlock, but site dying died during the scenario"),
                e.getMessage());
    }

    @Test
    void slowIsNotADeadlockAndFailingStepsCarryTheRemoteStack(SiteCluster cluster) {
        Site s = cluster.start(SiteSpec.app("steps", HarnessApps.ExitMidScenario.class));
        SiteException ex = assertThrows(SiteException.class, () -> s.run("throw", "x"));
        assertTrue(ex.getMessage().contains("IllegalArgumentException: step failed on purpose: [x]"), ex.getMessage());
        assertTrue(ex.getMessage().contains("HarnessApps$ExitMidScenario"), ex.getMessage());
        SiteException none = assertThrows(SiteException.class, () -> s.run("nosuchstep"));
        assertTrue(none.getMessage().contains("has no step 'nosuchstep'"), none.getMessage());
        SiteException slow = assertThrows(SiteException.class, () -> s.run(Duration.ofMillis(200), "sleep", "2000"));
        assertTrue(slow.getMessage().contains("did not finish within 200 ms"), slow.getMessage());

        AssertionError e = assertThrows(AssertionError.class,
                () -> cluster.assertCompletesWithin(Duration.ofSeconds(5), () -> s.run("throw")));
        assertTrue(e.getMessage().startsWith("Scenario failed after"), e.getMessage());
        assertTrue(e.getCause() instanceof SiteException);
    }

    @Test
    void monitorDumpIsPluggable(SiteCluster cluster) {
        List<Site> s = cluster.start(
                SiteSpec.app("withRuntime", HarnessApps.Idle.class).systemProperty("dthreads.site.monitorDumpClass",
                        HarnessApps.FakeMonitorDump.class.getName()),
                SiteSpec.app("stuckRuntime", HarnessApps.Idle.class).systemProperty("dthreads.site.monitorDumpClass",
                        HarnessApps.StuckMonitorDump.class.getName()),
                SiteSpec.app("noRuntime", HarnessApps.Idle.class));
        assertEquals("monitor 0x1 owned by class 00000001:00000002, 1 waiter", s.get(0).monitorDump());
        String stuck = s.get(1).monitorDump();
        assertTrue(stuck.contains("did not return within 2000 ms"), stuck);
        assertTrue(s.get(2).monitorDump().startsWith("no dthreads monitor runtime on this site"),
                s.get(2).monitorDump());
    }

    @Test
    void reportsBoundEachDumpByTheClustersDumpTimeout() {
        try (SiteCluster cluster = SiteCluster.builder().dumpTimeout(Duration.ofMillis(500)).build()) {
            cluster.start(SiteSpec.app("stuckRuntime", HarnessApps.Idle.class).systemProperty(
                    "dthreads.site.monitorDumpClass", HarnessApps.StuckMonitorDump.class.getName()));
            // the site gives up on its stuck runtime after 2000 ms; the cluster must not wait that long for it
            String monitors = cluster.reports().get(0).monitorDump();
            assertTrue(monitors.contains("did not answer within 500 ms"), monitors);
        }
    }
}
