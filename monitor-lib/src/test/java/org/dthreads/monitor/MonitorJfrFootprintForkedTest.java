package org.dthreads.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.dthreads.DThreads;
import org.dthreads.monitor.probe.JfrFootprintProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A JVM with no flight recording loads no JFR event class when an emulated monitor parks an entrant or runs a wait
 * (the first {@code jdk.jfr.Event} subclass costs about 280 classes and 1.3 MB of metaspace: issue 16); with a
 * recording the monitor events are there (the control, which also shows that the probe reaches the hooks).
 */
class MonitorJfrFootprintForkedTest {

    @Test
    @Timeout(60)
    void withoutARecordingNoEventClassIsLoaded() throws Exception {
        String out = runProbe(false);
        assertTrue(out.contains("parked=true"), out);
        assertFalse(out.contains(" jdk.jfr.Event "), "jdk.jfr.Event loaded:\n" + loadedJfr(out));
        assertFalse(out.contains("org.dthreads.monitor.internal.jfr.MonitorEnterEvent"), loadedJfr(out));
        assertFalse(out.contains("org.dthreads.monitor.internal.jfr.MonitorWaitEvent"), loadedJfr(out));
    }

    @Test
    @Timeout(60)
    void controlWithARecordingTheEventClassesAreLoaded() throws Exception {
        String out = runProbe(true);
        assertTrue(out.contains("parked=true"), out);
        assertTrue(out.contains("org.dthreads.monitor.internal.jfr.MonitorEnterEvent"), loadedJfr(out));
        assertTrue(out.contains("org.dthreads.monitor.internal.jfr.MonitorWaitEvent"), loadedJfr(out));
    }

    private static String loadedJfr(String out) {
        return String.join("\n", out.lines().filter(l -> l.contains("jfr")).limit(40).toList());
    }

    private static String runProbe(boolean recording) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Xlog:class+load=info:stdout");
        if (recording) {
            command.add("-XX:StartFlightRecording");
        }
        command.add("-cp");
        command.add(classesDir(JfrFootprintProbe.class) + File.pathSeparator + classesDir(Monitors.class)
                + File.pathSeparator + classesDir(DThreads.class));
        command.add(JfrFootprintProbe.class.getName());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(50, TimeUnit.SECONDS), "probe JVM did not finish within 50 s");
            assertEquals(0, process.exitValue(), output);
            return output;
        } finally {
            process.destroyForcibly();
        }
    }

    private static Path classesDir(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
