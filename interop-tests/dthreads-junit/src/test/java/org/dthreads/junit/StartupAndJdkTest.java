package org.dthreads.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.dthreads.junit.fixtures.HarnessApps;
import org.dthreads.junit.fixtures.PlainServerMain;
import org.dthreads.junit.fixtures.ZigzagSiteA;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Start time, plain main classes, another JDK, JVM flags. */
@ExtendWith(SitesExtension.class)
class StartupAndJdkTest {

    static final Path JDK25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");

    @Test
    void twoSitesStartInAFewSeconds(SiteCluster cluster) {
        long t0 = System.nanoTime();
        List<Site> s = cluster.start(SiteSpec.app("A", HarnessApps.Idle.class), SiteSpec.app("B", HarnessApps.Idle.class));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.printf("two-site start, fast-start flags: %d ms%n", ms);
        assertTrue(ms < 10_000, "two sites took " + ms + " ms");
        assertEquals("pong", s.get(0).run(Duration.ofSeconds(5), "ping"));
    }

    @Test
    void plainMainClassIsReadyWhenMainReturnsAndServesTheZigzag(SiteCluster cluster) {
        List<Site> s = cluster.start(SiteSpec.app("A", ZigzagSiteA.class).args("separate"),
                SiteSpec.main("B", PlainServerMain.class.getName(), "x", "y z"));
        assertEquals("x,y z", s.get(1).endpoint("args"));
        assertTrue(s.get(1).stdoutTail().contains("plain main started with 2 args"), s.get(1).stdoutTail());
        String r = cluster.assertCompletesWithin(Duration.ofSeconds(10), () -> s.get(0).run("zigzag"));
        assertTrue(r.startsWith("foo(bar(baz[B,"), r);
    }

    @Test
    void siteRunsOnAnotherJdkWithOwnFlagsAndProperties(SiteCluster cluster) {
        Assumptions.assumeTrue(Files.isExecutable(JDK25), JDK25 + " not installed");
        Site s = cluster.start(SiteSpec.app("jdk25", HarnessApps.Idle.class).javaExecutable(JDK25)
                .jvmFlags("-XX:+UseG1GC", "-Xmx64m").systemProperty("demo.flag", "on"));
        assertTrue(s.endpoint("java.version").startsWith("25"), s.endpoint("java.version"));
        // the in-site dump works on the other JDK too
        assertTrue(s.threadDump().contains("dthreads-site-control"), s::threadDump);
    }
}
