package org.dthreads.interop.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Runs a forked JVM (this test JVM's java) and collects its exit status and output. */
final class ForkedJvm {

    static final Path AGENT = Path.of(System.getProperty("dthreads.agent.jar",
            "../dthreads-agent/target/dthreads-agent.jar")).toAbsolutePath();
    static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

    record Result(int exit, String out, String err) {
        List<String> lines() {
            return out.lines().toList();
        }

        String describe() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private ForkedJvm() {}

    static void assertAgentBuilt() {
        assertTrue(Files.isRegularFile(AGENT), "run the build first: no agent at " + AGENT);
    }

    static String classPath(Path... entries) {
        return String.join(File.pathSeparator, Arrays.stream(entries).map(Path::toString).toList());
    }

    /** {@code java args...} */
    static Result java(String... args) {
        List<String> command = new ArrayList<>();
        command.add(JAVA.toString());
        command.addAll(List.of(args));
        return run(command);
    }

    static Result run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).start();
            p.getOutputStream().close();
            CompletableFuture<String> out = read(p.getInputStream());
            CompletableFuture<String> err = read(p.getErrorStream());
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("timed out: " + command + "\n" + err.getNow(""));
            }
            return new Result(p.exitValue(), out.join(), err.join());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static CompletableFuture<String> read(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** The compiled {@code example.conformance} fixtures, copied alone into {@code dir}. */
    static Path fixtures(Path dir) throws IOException {
        Path classes = Path.of(ForkedJvm.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        Path source = classes.resolve("example/conformance");
        Path target = dir.resolve("example/conformance");
        Files.createDirectories(target);
        try (Stream<Path> files = Files.list(source)) {
            for (Path f : files.toList()) {
                Files.copy(f, target.resolve(f.getFileName().toString()));
            }
        }
        return dir;
    }

    /** A built jar of a sibling module, e.g. {@code ../monitor-lib/target/monitor-lib-*.jar}. */
    static Path moduleJar(String module) throws IOException {
        Path target = Path.of("..", module, "target").toAbsolutePath().normalize();
        try (Stream<Path> jars = Files.list(target)) {
            return jars.filter(p -> {
                String n = p.getFileName().toString();
                return n.startsWith(module + "-") && n.endsWith(".jar") && !n.endsWith("-sources.jar")
                        && !n.endsWith("-tests.jar") && !n.endsWith("-javadoc.jar");
            }).findFirst().orElseThrow(() -> new AssertionError("no jar of " + module + " in " + target));
        }
    }
}
