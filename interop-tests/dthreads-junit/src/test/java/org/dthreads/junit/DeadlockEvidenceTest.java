package org.dthreads.junit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.dthreads.junit.fixtures.HarnessApps;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The evidence of {@link SiteCluster#assertDeadlocksWithin}: taken when it shows, not once at the bound. */
@ExtendWith(SitesExtension.class)
class DeadlockEvidenceTest {

    @Test
    void evidenceThatFormsAfterTheBoundIsWaitedFor(SiteCluster cluster) {
        // stuck from the start, but the JVM-visible ABBA forms only 2.5 s in, after the 1 s bound (a starved machine)
        Site s = cluster.start(SiteSpec.app("late", HarnessApps.LateAbba.class));
        DeadlockEvidence e = cluster.assertDeadlocksWithin(Duration.ofSeconds(1), () -> s.run("stuck", "2500"),
                "the JVM deadlock check of site late naming both threads", DeadlockEvidenceTest::namesBoth);
        assertTrue(namesBoth(e), e::format);
    }

    @Test
    void evidenceThatNeverShowsFailsAfterTheEvidenceTimeoutWithTheLastReports() {
        try (SiteCluster cluster = SiteCluster.builder().evidenceTimeout(Duration.ofSeconds(2)).build()) {
            Site s = cluster.start(SiteSpec.app("late", HarnessApps.LateAbba.class));
            long t0 = System.nanoTime();
            AssertionError e = assertThrows(AssertionError.class,
                    () -> cluster.assertDeadlocksWithin(Duration.ofSeconds(1), () -> s.run("stuck", "600000"),
                            "the JVM deadlock check of site late naming both threads", DeadlockEvidenceTest::namesBoth));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            String m = e.getMessage();
            assertTrue(m.startsWith("The scenario was stuck with every site alive, but in "), m);
            assertTrue(m.contains("(its bound 1000 ms, then the evidence timeout 2000 ms) the evidence never showed the JVM"
                    + " deadlock check of site late naming both threads. The last reports:"), m);
            assertTrue(m.contains("\"dthreads-step-stuck-"), "the last thread dump: " + m);
            assertTrue(ms >= 3000, "failed after the bound and the evidence timeout: " + ms + " ms");
            assertFalse(s.isAlive(), "killed after the failure");
        }
    }

    @Test
    void aScenarioThatEndsWhileTheEvidenceIsAwaitedIsNotADeadlock(SiteCluster cluster) {
        Site s = cluster.start(SiteSpec.app("slow", HarnessApps.ExitMidScenario.class));
        AssertionError e = assertThrows(AssertionError.class,
                () -> cluster.assertDeadlocksWithin(Duration.ofSeconds(1), () -> s.run("sleep", "2500"),
                        "something that never shows", ev -> false));
        assertTrue(e.getMessage().startsWith("Expected a deadlock, but the scenario ended while dumps were taken"
                + " (slow, not deadlocked): completed"), e.getMessage());
    }

    private static boolean namesBoth(DeadlockEvidence e) {
        String check = e.report("late").threadDump().lines().filter(l -> l.contains("findDeadlockedThreads"))
                .findFirst().orElse("");
        return check.contains("\"late-abba-1\"") && check.contains("\"late-abba-2\"");
    }
}
