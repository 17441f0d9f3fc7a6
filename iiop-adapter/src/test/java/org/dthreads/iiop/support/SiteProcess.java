package org.dthreads.iiop.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * A private, minimal multi-JVM launcher for this module's tests: runs {@link SiteMain} in a child
 * JVM with this JVM's class path, waits (bounded) for its IOR on stdout, and kills it on close.
 */
public final class SiteProcess implements AutoCloseable {

    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private volatile String ior;

    private SiteProcess(Process process) {
        this.process = process;
    }

    /** Starts a site with the test JVM's java. */
    public static SiteProcess start(String kind) {
        return start(Path.of(System.getProperty("java.home")), kind);
    }

    /** Starts a site with the java of {@code javaHome}. */
    public static SiteProcess start(Path javaHome, String kind) {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaHome.resolve("bin").resolve("java").toString());
        cmd.add("-Xmx256m");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Xshare:auto");
        String path = System.getProperty("dthreads.iiop.path"); // the path under test, in every site
        if (path != null) {
            cmd.add("-Ddthreads.iiop.path=" + path);
        }
        for (String arg : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("-javaagent:")) {
                cmd.add(arg); // the test agent: JacORB sites on the same path as this JVM
            }
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(SiteMain.class.getName());
        cmd.add(kind);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + cmd, e);
        }
        SiteProcess site = new SiteProcess(p);
        Thread reader = new Thread(site::pump, "site-" + kind + "-out");
        reader.setDaemon(true);
        reader.start();
        try {
            Awaitility.await("IOR from site " + kind).atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> site.ior != null || !p.isAlive());
        } catch (RuntimeException e) {
            site.close();
            throw new IllegalStateException("site " + kind + " did not start: " + site.lines, e);
        }
        if (site.ior == null) {
            site.close();
            throw new IllegalStateException("site " + kind + " exited: " + site.lines);
        }
        return site;
    }

    /** Whether {@code javaHome} has a java launcher. */
    public static boolean hasJava(Path javaHome) {
        return javaHome != null && Files.isExecutable(javaHome.resolve("bin").resolve("java"));
    }

    private void pump() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
                if (line.startsWith("IOR ")) {
                    ior = line.substring(4).trim();
                }
            }
        } catch (IOException ignored) {
            // process gone
        }
    }

    public String ior() {
        return ior;
    }

    /** Everything the site printed so far (stdout and stderr). */
    public List<String> output() {
        return List.copyOf(lines);
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
