package org.dthreads.monitor;

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
import org.dthreads.monitor.probe.ChildFirstMonitorsProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One monitor table per JVM: with monitor-lib on the bootstrap class path (where the agent puts it), a
 * child-first copy of {@link Monitors} acts on the same monitors. The control, without the bootstrap
 * copy, shows two tables.
 */
class BootDelegationForkedTest {

    @Test
    @Timeout(60)
    void aChildFirstCopyUsesTheBootstrapMonitorTable() throws Exception {
        Map<String, String> out = runProbe(true);
        assertEquals("true", out.get("monitorsOnBootPath"), out::toString);
        assertEquals("true", out.get("copyIsDistinct"), out::toString);
        assertEquals("true", out.get("copySeesOwner"), out::toString);
        assertEquals("true", out.get("copyExitReleases"), out::toString);
        assertEquals("true", out.get("copyForwardsLostExits"), out::toString);
    }

    @Test
    @Timeout(60)
    void controlWithoutABootstrapCopyEachCopyHasItsOwnTable() throws Exception {
        Map<String, String> out = runProbe(false);
        assertEquals("false", out.get("monitorsOnBootPath"), out::toString);
        assertEquals("true", out.get("copyIsDistinct"), out::toString);
        assertEquals("false", out.get("copySeesOwner"), out::toString);
        assertEquals("false", out.get("copyExitReleases"), out::toString);
    }

    private static Map<String, String> runProbe(boolean onBootPath) throws Exception {
        Path monitorClasses = classesDir(Monitors.class);
        Path apiClasses = classesDir(DThreads.class);
        Path testClasses = classesDir(ChildFirstMonitorsProbe.class);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-XX:TieredStopAtLevel=1");
        if (onBootPath) {
            command.add("-Xbootclasspath/a:" + monitorClasses + File.pathSeparator + apiClasses);
            command.add("-cp");
            command.add(testClasses.toString());
        } else {
            command.add("-cp");
            command.add(testClasses + File.pathSeparator + monitorClasses + File.pathSeparator + apiClasses);
        }
        command.add(ChildFirstMonitorsProbe.class.getName());
        command.add(monitorClasses.toString());
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
            output.lines().filter(l -> l.contains("=") && !l.contains(" ")).forEach(l -> {
                int eq = l.indexOf('=');
                values.put(l.substring(0, eq).trim(), l.substring(eq + 1).trim());
            });
            values.put("_output", output);
            return values;
        } finally {
            process.destroyForcibly();
        }
    }

    private static Path classesDir(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
