package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * The Temurin 25 launcher the JDK-matrix and virtual-thread tests run sites on ({@code -Ddthreads.jdk25=JAVA_HOME}
 * to move it). On CI ({@code -Ddthreads.test.requireJdk25=true}, set by the pom from {@code CI}) its absence fails
 * the test instead of skipping it, so those tests cannot silently stop running.
 */
final class Jdk25 {
    private Jdk25() {}

    /** The {@code java} launcher of JDK 25; skips the calling test, with the reason, if there is none. */
    static Path javaOrSkip() {
        Path java = Path.of(System.getProperty("dthreads.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"), "bin", "java");
        String missing = "no JDK 25 at " + java + " (set -Ddthreads.jdk25=...)";
        if (Boolean.getBoolean("dthreads.test.requireJdk25")) {
            assertTrue(Files.isExecutable(java), missing + "; required on CI");
        }
        Assumptions.assumeTrue(Files.isExecutable(java), missing);
        return java;
    }
}
