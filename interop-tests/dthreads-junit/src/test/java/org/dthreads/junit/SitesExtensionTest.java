package org.dthreads.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.ArrayList;
import java.util.List;

import org.dthreads.junit.fixtures.HarnessApps;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/** The extension closes clusters after each test and attaches site reports to foreign failures. */
class SitesExtensionTest {

    static final List<Long> PIDS = new ArrayList<>();

    @ExtendWith(SitesExtension.class)
    static class FailingUserTest {
        @Test
        void failsWithItsOwnAssertion(SiteCluster cluster) {
            PIDS.add(cluster.start(SiteSpec.app("idle", HarnessApps.Idle.class)).pid());
            throw new AssertionError("the test's own failure");
        }
    }

    @Test
    void foreignFailureGetsSiteReportsAndTheClusterIsClosed() {
        PIDS.clear();
        Events events = EngineTestKit.engine("junit-jupiter").selectors(selectClass(FailingUserTest.class))
                .execute().testEvents();
        assertEquals(1, events.failed().count());
        Throwable t = events.failed().stream().findFirst().orElseThrow().getPayload(
                org.junit.platform.engine.TestExecutionResult.class).orElseThrow().getThrowable().orElseThrow();
        assertEquals("the test's own failure", t.getMessage());
        assertEquals(1, t.getSuppressed().length);
        String report = t.getSuppressed()[0].getMessage();
        assertTrue(report.contains("===== site idle") && report.contains("dthreads-site-control"), report);
        assertEquals(1, PIDS.size());
        assertFalse(ProcessHandle.of(PIDS.get(0)).map(ProcessHandle::isAlive).orElse(false), "site killed");
    }
}
