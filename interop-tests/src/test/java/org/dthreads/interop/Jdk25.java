package org.dthreads.interop;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/** The Temurin 25 launcher the JDK-matrix tests run sites on ({@code -Ddthreads.jdk25=JAVA_HOME} to move it). */
final class Jdk25 {
    private Jdk25() {}

    /** The {@code java} launcher of JDK 25; skips the calling test, with the reason, if there is none. */
    static Path javaOrSkip() {
        Path java = Path.of(System.getProperty("dthreads.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"), "bin", "java");
        Assumptions.assumeTrue(Files.isExecutable(java), "no JDK 25 at " + java + " (set -Ddthreads.jdk25=...)");
        return java;
    }
}
