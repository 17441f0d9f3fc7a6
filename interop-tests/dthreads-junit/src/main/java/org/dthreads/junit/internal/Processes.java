package org.dthreads.junit.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Killing process trees and running short external commands with a bound. */
public final class Processes {

    private Processes() {}

    /**
     * Ends {@code root} and every descendant: a polite {@code destroy()} (SIGTERM) first, then
     * {@code destroyForcibly()} (SIGKILL) for whatever is still alive after {@code grace}.
     * Returns when all are gone or after a further 5 s.
     */
    public static void killTree(ProcessHandle root, Duration grace) {
        List<ProcessHandle> all = new ArrayList<>();
        all.add(root);
        try {
            root.descendants().forEach(all::add);
        } catch (RuntimeException e) {
            // process table not readable: kill what we know
        }
        for (ProcessHandle p : all) {
            p.destroy();
        }
        if (!awaitGone(all, grace)) {
            for (ProcessHandle p : all) {
                p.destroyForcibly();
            }
            awaitGone(all, Duration.ofSeconds(5));
        }
    }

    /** Immediate SIGKILL of a tree, for shutdown hooks. */
    public static void killTreeNow(ProcessHandle root) {
        try {
            root.descendants().forEach(ProcessHandle::destroyForcibly);
        } catch (RuntimeException e) {
            // ignore
        }
        root.destroyForcibly();
    }

    private static boolean awaitGone(List<ProcessHandle> all, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        for (ProcessHandle p : all) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return all.stream().noneMatch(ProcessHandle::isAlive);
            }
            try {
                p.onExit().get(left, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                return false;
            } catch (Exception e) {
                // interrupted or failed: check below
            }
        }
        return all.stream().noneMatch(ProcessHandle::isAlive);
    }

    /** The result of {@link #run}. */
    public record Result(int exitCode, String output, boolean timedOut) {
        public boolean ok() {
            return !timedOut && exitCode == 0;
        }
    }

    /** Runs a command with stderr merged into stdout; kills it after {@code bound}. */
    public static Result run(Duration bound, List<String> command) {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
        } catch (IOException e) {
            return new Result(-1, "cannot run " + command + ": " + e, false);
        }
        // a thread of its own, not the common pool: the output must be drained while we wait
        CompletableFuture<String> out = new CompletableFuture<>();
        Thread reader = new Thread(() -> out.complete(readAll(p.getInputStream())), "dthreads-junit-cmd-output");
        reader.setDaemon(true);
        reader.start();
        try {
            boolean done = p.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS);
            if (!done) {
                killTreeNow(p.toHandle());
                return new Result(-1, out.getNow(""), true);
            }
            return new Result(p.exitValue(), out.get(2, TimeUnit.SECONDS), false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            killTreeNow(p.toHandle());
            return new Result(-1, "interrupted", true);
        } catch (Exception e) {
            return new Result(p.exitValue(), "", false);
        }
    }

    private static String readAll(InputStream in) {
        try (in) {
            ByteArrayOutputStream bos = new ByteArrayOutputStream();
            in.transferTo(bos);
            return bos.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
