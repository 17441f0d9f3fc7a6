package org.dthreads.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.dthreads.DThreads;
import org.dthreads.probe.ChildFirstProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One runtime per JVM: a child-first copy of the API delegates to the copy on the bootstrap class
 * path (where the agent puts it). The control, without the bootstrap copy, shows two states.
 */
class BootDelegationForkedTest {

    @Test
    @Timeout(60)
    void aChildFirstCopyDelegatesToTheBootstrapRuntime() throws Exception {
        Map<String, String> out = runProbe(true);
        assertEquals("true", out.get("apiOnBootPath"), out::toString);
        assertEquals("true", out.get("copyIsDistinct"), out::toString);
        assertEquals("true", out.get("sameSite"), out::toString);
        assertEquals("true", out.get("sameClass"), out::toString);
        assertEquals("true", out.get("bindVisibleAcrossCopies"), out::toString);
    }

    @Test
    @Timeout(60)
    void controlWithoutABootstrapCopyEachCopyHasItsOwnState() throws Exception {
        Map<String, String> out = runProbe(false);
        assertEquals("false", out.get("apiOnBootPath"), out::toString);
        assertEquals("true", out.get("copyIsDistinct"), out::toString);
        assertEquals("false", out.get("sameClass"), out::toString);
        assertEquals("false", out.get("bindVisibleAcrossCopies"), out::toString);
    }

    private static Map<String, String> runProbe(boolean apiOnBootPath) throws Exception {
        Path apiClasses = classesDir(DThreads.class);
        Path testClasses = classesDir(ChildFirstProbe.class);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xshare:auto");
        command.add("-XX:TieredStopAtLevel=1");
        if (apiOnBootPath) {
            command.add("-Xbootclasspath/a:" + apiClasses);
            command.add("-cp");
            command.add(testClasses.toString());
        } else {
            command.add("-cp");
            command.add(testClasses + File.pathSeparator + apiClasses);
        }
        command.add(ChildFirstProbe.class.getName());
        command.add(apiClasses.toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!process.waitFor(50, TimeUnit.SECONDS)) {
                throw new AssertionError("probe JVM did not finish within 50 s");
            }
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new AssertionError("probe JVM failed (" + process.exitValue() + "):\n" + output);
            }
            Map<String, String> values = new HashMap<>();
            output.lines().filter(l -> l.contains("=")).forEach(l -> {
                int eq = l.indexOf('=');
                values.put(l.substring(0, eq).trim(), l.substring(eq + 1).trim());
            });
            return values;
        } finally {
            process.destroyForcibly();
        }
    }

    private static Path classesDir(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
