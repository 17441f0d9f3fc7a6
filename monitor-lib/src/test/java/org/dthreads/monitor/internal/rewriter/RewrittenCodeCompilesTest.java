package org.dthreads.monitor.internal.rewriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Rewritten methods with monitors must stay compilable: HotSpot's C1 and C2 refuse a method whose
 * JVM monitors its monitor-matching analysis cannot pair, and the method then runs interpreted for
 * ever (about 10x slower). That happened to every rewritten method until the splitter's dispatch
 * stopped carrying a {@code dup} of the lock across its branch. The child JVM runs rewritten fixtures hot
 * under {@code -Xbatch} and logs the analysis ({@code -Xlog:monitormismatch}) and the compilations.
 */
class RewrittenCodeCompilesTest {

    @Test
    void rewrittenSynchronizedCodeIsCompiledByC1AndC2() throws Exception {
        Path log = Files.createTempFile("compile-probe", ".log");
        try {
            List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xbatch", "-XX:+PrintCompilation", "-Xlog:monitormismatch=info:stdout",
                    "-cp", System.getProperty("java.class.path"), CompileProbe.class.getName());
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the probe JVM did not finish in 120 s");
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            String output = String.join("\n", lines);
            assertEquals(0, process.exitValue(), output);
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("done")), output);
            List<String> fixtureLines = lines.stream().filter(l -> l.contains("rewriter.fixtures."))
                    .collect(Collectors.toList());
            List<String> refused = fixtureLines.stream()
                    .filter(l -> l.contains("Monitor mismatch") || l.contains("COMPILE SKIPPED") || l.contains("not compilable"))
                    .collect(Collectors.toList());
            assertEquals(List.of(), refused, "rewritten methods the JIT refused");
            for (String method : new String[] {"GoldenShapes::bump", "Counter::incrementInBlock", "GoldenShapes::nestedBump",
                    "Counter::tryFinallyInside"}) {
                for (String tier : new String[] {"3", "4"}) {
                    assertTrue(fixtureLines.stream().anyMatch(l -> l.contains(method + " ") && tierOf(l).equals(tier)),
                            method + " was not compiled at tier " + tier + ":\n" + String.join("\n", fixtureLines));
                }
            }
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** The tier column of a {@code -XX:+PrintCompilation} line: the first single digit after the attribute flags. */
    private static String tierOf(String line) {
        String[] fields = line.trim().split("\\s+");
        for (int i = 2; i < fields.length; i++) {
            if (fields[i].matches("[0-4]")) {
                return fields[i];
            }
        }
        return "";
    }
}
