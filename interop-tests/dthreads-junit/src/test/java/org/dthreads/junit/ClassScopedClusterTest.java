package org.dthreads.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.dthreads.junit.fixtures.HarnessApps;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A cluster resolved in {@code @BeforeAll} is shared by the class's tests and closed after them. */
@ExtendWith(SitesExtension.class)
class ClassScopedClusterTest {

    static SiteCluster shared;
    static long pid;

    @BeforeAll
    static void startOnce(SiteCluster cluster) {
        shared = cluster;
        pid = cluster.start(SiteSpec.app("idle", HarnessApps.Idle.class)).pid();
    }

    @Test
    void firstTestUsesTheSharedSite(SiteCluster cluster) {
        assertSame(shared, cluster);
        assertEquals("pong", cluster.site("idle").run(Duration.ofSeconds(5), "ping"));
    }

    @Test
    void secondTestStillHasIt(SiteCluster cluster) {
        assertSame(shared, cluster);
        assertTrue(cluster.site("idle").isAlive());
    }

    @AfterAll
    static void stillOpenInAfterAll() {
        // the extension's afterAll runs after this method
        assertTrue(ProcessHandle.of(pid).isPresent());
    }
}
