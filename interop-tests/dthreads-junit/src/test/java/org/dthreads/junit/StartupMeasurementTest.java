package org.dthreads.junit;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.UnaryOperator;

import org.dthreads.junit.fixtures.ZigzagSiteA;
import org.dthreads.junit.fixtures.ZigzagSiteB;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The numbers in docs/site-harness.md: two-site start plus one zigzag, per JVM configuration.
 * Run with {@code -Ddthreads.junit.measure=true -Dtest=StartupMeasurementTest}; off by default.
 */
@EnabledIfSystemProperty(named = "dthreads.junit.measure", matches = "true")
class StartupMeasurementTest {

    private static final int ROUNDS = 7;

    private static void measure(String label, UnaryOperator<SiteSpec> config) {
        List<Long> start = new ArrayList<>();
        List<Long> total = new ArrayList<>();
        for (int i = 0; i < ROUNDS; i++) {
            long t0 = System.nanoTime();
            try (SiteCluster cluster = new SiteCluster()) {
                List<Site> s = cluster.start(config.apply(SiteSpec.app("A", ZigzagSiteA.class).args("separate")),
                        config.apply(SiteSpec.app("B", ZigzagSiteB.class)));
                start.add((System.nanoTime() - t0) / 1_000_000);
                cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> s.get(0).run("zigzag"));
                total.add((System.nanoTime() - t0) / 1_000_000);
            }
        }
        Collections.sort(start);
        Collections.sort(total);
        System.out.printf("%-40s start median %5d ms (min %5d, max %5d); start+zigzag median %5d ms%n", label,
                start.get(ROUNDS / 2), start.get(0), start.get(ROUNDS - 1), total.get(ROUNDS / 2));
    }

    @Test
    void measure() {
        measure("fast-start defaults", s -> s);
        measure("fastStart(false) (JVM defaults)", s -> s.fastStart(false));
        measure("fast-start, -Xshare:off", s -> s.jvmFlags("-Xshare:off"));
        if (Files.isExecutable(StartupAndJdkTest.JDK25)) {
            measure("fast-start, temurin 25", s -> s.javaExecutable(StartupAndJdkTest.JDK25));
        }
    }
}
