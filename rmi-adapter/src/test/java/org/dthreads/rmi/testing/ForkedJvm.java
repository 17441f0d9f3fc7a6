package org.dthreads.rmi.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * A JVM forked with the test's class path, optionally with the test agent. Keeps every line it
 * prints; {@link #close()} kills it and its descendants.
 */
public final class ForkedJvm implements AutoCloseable {

    private final Process process;
    private final List<String> out = new CopyOnWriteArrayList<>();
    private final List<String> err = new CopyOnWriteArrayList<>();

    private ForkedJvm(Process process) {
        this.process = process;
        pump(process.inputReader(StandardCharsets.UTF_8), out);
        pump(new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8)), err);
    }

    public static ForkedJvm start(Path agentJar, String mainClass, String... args) throws IOException {
        return start(Path.of(System.getProperty("java.home")), agentJar, mainClass, args);
    }

    /** Like {@link #start(Path, String, String...)}, on the JDK at {@code javaHome}. */
    public static ForkedJvm start(Path javaHome, Path agentJar, String mainClass, String... args) throws IOException {
        return start(javaHome, List.of(), agentJar, mainClass, args);
    }

    /** Like {@link #start(Path, Path, String, String...)}, with extra JVM flags. */
    public static ForkedJvm start(Path javaHome, List<String> jvmFlags, Path agentJar, String mainClass, String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(javaHome.resolve("bin").resolve("java").toString());
        command.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto"));
        command.addAll(jvmFlags);
        if (agentJar != null) {
            command.add("-javaagent:" + agentJar);
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(List.of(args));
        return new ForkedJvm(new ProcessBuilder(command).start());
    }

    private static void pump(BufferedReader reader, List<String> sink) {
        Thread t = new Thread(() -> {
            try (reader) {
                for (String line; (line = reader.readLine()) != null; ) {
                    sink.add(line);
                }
            } catch (IOException ignored) {
                // process gone
            }
        }, "forked-jvm-pump");
        t.setDaemon(true);
        t.start();
    }

    /** Waits (bounded) for a line starting with {@code prefix}; fails with the JVM's output. */
    public String awaitLine(String prefix, Duration timeout) {
        try {
            Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(20))
                    .until(() -> out.stream().anyMatch(l -> l.startsWith(prefix)) || !process.isAlive());
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("no '" + prefix + "' line within " + timeout + "\n" + transcript(), e);
        }
        return out.stream().filter(l -> l.startsWith(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("JVM exited before printing '" + prefix + "'\n" + transcript()));
    }

    /** Waits (bounded) for the JVM to exit with status 0. */
    public void awaitSuccess(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("JVM still running after " + timeout + "\n" + transcript());
        }
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> true);
        if (process.exitValue() != 0) {
            throw new AssertionError("JVM exited with " + process.exitValue() + "\n" + transcript());
        }
    }

    /** The value of the last {@code key=value} line printed. */
    public String value(String key) {
        String found = null;
        for (String line : out) {
            if (line.startsWith(key + "=")) {
                found = line.substring(key.length() + 1);
            }
        }
        if (found == null) {
            throw new AssertionError("no " + key + "= line\n" + transcript());
        }
        return found;
    }

    public List<String> stderr() {
        return List.copyOf(err);
    }

    public String transcript() {
        return "--- stdout\n" + String.join("\n", out) + "\n--- stderr\n" + String.join("\n", err);
    }

    public void closeInput() throws IOException {
        process.getOutputStream().close();
    }

    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
