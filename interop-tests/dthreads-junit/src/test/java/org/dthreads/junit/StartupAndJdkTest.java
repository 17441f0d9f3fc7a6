package org.dthreads.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.dthreads.junit.fixtures.HarnessApps;
import org.dthreads.junit.fixtures.MarkerAgent;
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

    @Test
    void javaAgentIsAppliedWithItsOptions(SiteCluster cluster) throws IOException {
        Path jar = cluster.tempDir().resolve("marker-agent.jar");
        Manifest mf = new Manifest();
        mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        mf.getMainAttributes().put(new Attributes.Name("Premain-Class"), MarkerAgent.class.getName());
        mf.getMainAttributes().put(new Attributes.Name("Can-Retransform-Classes"), "true");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, mf)) {
            // manifest only: the agent class comes from the site's class path
        }
        Site s = cluster.start(SiteSpec.app("agent", HarnessApps.Idle.class).javaAgent(jar, "mode=test"));
        assertEquals("premain(mode=test) retransform=true", s.endpoint("marker.agent"));
    }

    @Test
    void customClassPathGetsTheKitAdded(SiteCluster cluster) throws Exception {
        Path testClasses = Path.of(HarnessApps.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Site s = cluster.start(SiteSpec.app("small", HarnessApps.Idle.class).classpath(List.of(testClasses)));
        String cp = s.endpoint("java.class.path");
        assertTrue(cp.startsWith(testClasses.toString()), cp);
        assertEquals(2, cp.split(java.io.File.pathSeparator).length, cp);
        assertEquals("pong", s.run(Duration.ofSeconds(5), "ping"));
    }
}
