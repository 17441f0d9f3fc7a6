package org.dthreads.junit.internal;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A launched site JVM's process and its three pipes: its stdout and stderr drained into bounded
 * tails (echoed to the test's stderr if asked), lines written to its stdin, its end noticed, and
 * stopping it (as an expected end). What the stdout lines mean is {@link ControlChannel}'s job.
 *
 * <h2>Threading contract</h2>
 * Thread-safe. {@link #start} starts two daemon threads that read stdout and stderr until the
 * process closes them (so a chatty site never blocks on a full pipe), and its end is handled on a
 * new daemon thread, not on the JDK's process reaper: it first waits (at most 2 s) for the output to
 * drain, then completes the exit code and runs the end callback. Writes to stdin are serialized.
 */
public final class SiteProcess {

    private static final int TAIL_LINES = 200;
    private static final int TAIL_LINE_CHARS = 2000;
    private static final int MAX_LINE_BYTES = 32 << 20;

    private final String name;
    private final boolean echo;
    private final Process process;
    private final long launchedNanos;
    private final Writer stdin;
    private final Tail stdoutTail = new Tail(TAIL_LINES, TAIL_LINE_CHARS);
    private final Tail stderrTail = new Tail(TAIL_LINES, TAIL_LINE_CHARS);
    private final CountDownLatch drained = new CountDownLatch(2);
    private final CompletableFuture<Integer> exited = new CompletableFuture<>();
    private volatile boolean killedByHarness;

    /** The site {@code name}'s {@code process}, launched at {@code launchedNanos}; {@code echo} copies its output to stderr. */
    public SiteProcess(String name, boolean echo, Process process, long launchedNanos) {
        this.name = name;
        this.echo = echo;
        this.process = process;
        this.launchedNanos = launchedNanos;
        this.stdin = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
    }

    /** Starts draining the output, stdout lines to {@code stdoutLines}; runs {@code onEnd} once the process has ended. */
    public void start(Consumer<String> stdoutLines, Runnable onEnd) {
        pump(process.getInputStream(), "stdout", stdoutLines);
        pump(process.getErrorStream(), "stderr", line -> {
            stderrTail.add(line);
            echo("[" + name + " err] ", line);
        });
        // not on the process reaper thread: onExit waits for the output to drain
        process.onExit().whenCompleteAsync((proc, err) -> onExit(onEnd), SiteProcess::daemon);
    }

    private static void daemon(Runnable r) {
        Thread t = new Thread(r, "dthreads-site-exit");
        t.setDaemon(true);
        t.start();
    }

    private void pump(InputStream in, String what, Consumer<String> sink) {
        Thread t = new Thread(() -> {
            LineReader r = new LineReader(in, MAX_LINE_BYTES);
            try (in) {
                String line;
                while ((line = r.readLine()) != null) {
                    try {
                        sink.accept(line);
                    } catch (RuntimeException e) {
                        stderrTail.add("[dthreads-junit: unreadable line dropped: " + e + "]");
                    }
                }
            } catch (IOException e) {
                // stream closed: the process is gone
            } finally {
                drained.countDown();
            }
        }, "dthreads-site-" + name + "-" + what);
        t.setDaemon(true);
        t.start();
    }

    private void echo(String prefix, String line) {
        if (echo) {
            System.err.println(prefix + line);
        }
    }

    /** A line of the site's own output (not the protocol's): kept in the stdout tail and echoed. */
    public void outputLine(String line) {
        stdoutTail.add(line);
        echo("[" + name + "] ", line);
    }

    /** A stdout line the protocol could not use: kept in the stdout tail, not echoed. */
    public void keepLine(String line) {
        stdoutTail.add(line);
    }

    private void onExit(Runnable onEnd) {
        awaitDrained();
        int code = process.exitValue();
        exited.complete(code);
        onEnd.run();
    }

    /** Waits at most 2 s for both output pumps to reach the end of their stream. */
    public void awaitDrained() {
        try {
            drained.await(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** "site A exited with code 1" plus the failure and stderr tail; for messages. */
    public String deathMessage(String startFailure) {
        StringBuilder sb = new StringBuilder("site ").append(name).append(" (pid ").append(pid()).append(") ");
        if (killedByHarness) {
            sb.append("was stopped by the harness");
        } else {
            sb.append("exited unexpectedly");
        }
        if (!process.isAlive()) {
            sb.append(" with code ").append(process.exitValue());
        }
        sb.append(" after ").append(uptime().toMillis()).append(" ms");
        if (startFailure != null) {
            sb.append("\n--- start failure:\n").append(startFailure.strip());
        }
        sb.append("\n--- stderr tail:\n").append(stderrTail.isEmpty() ? "(empty)\n" : stderrTail.render("  "));
        sb.append("--- stdout tail:\n").append(stdoutTail.isEmpty() ? "(empty)\n" : stdoutTail.render("  "));
        return sb.toString();
    }

    /** Writes {@code line} to the site's stdin; a site that is gone is learnt of from its end, not here. */
    public void send(String line) {
        synchronized (stdin) {
            try {
                stdin.write(line);
                stdin.write('\n');
                stdin.flush();
            } catch (IOException e) {
                // the site is gone; waiters learn it from onExit
            }
        }
    }

    // ------------------------------------------------------------------ stopping

    /** From now on the site's end is expected (it was asked to exit, or is being killed). */
    public void endExpected() {
        killedByHarness = true;
    }

    public boolean diedUnexpectedly() {
        return !process.isAlive() && !killedByHarness;
    }

    /** SIGTERM, SIGKILL after {@code grace} (descendants too); then closes stdin and waits up to 5 s for the end. */
    public void kill(Duration grace) {
        killedByHarness = true;
        if (process.isAlive()) {
            Processes.killTree(process.toHandle(), grace);
        }
        awaitDrained();
        synchronized (stdin) {
            try {
                stdin.close();
            } catch (IOException e) {
                // already closed
            }
        }
        try {
            exited.get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            // reported by isAlive()
        }
    }

    /** SIGKILL now, descendants too, without waiting. */
    public void killNow() {
        killedByHarness = true;
        Processes.killTreeNow(process.toHandle());
    }

    /** Whether the process ended within {@code timeout}. */
    public boolean awaitEnd(Duration timeout) {
        try {
            process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    // ------------------------------------------------------------------ state

    /** Whether the end has been handled (exit code known, output drained or given up on). */
    public boolean hasEnded() {
        return exited.isDone();
    }

    public long pid() {
        return process.pid();
    }

    public ProcessHandle handle() {
        return process.toHandle();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public OptionalInt exitCode() {
        return process.isAlive() ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
    }

    public long launchedNanos() {
        return launchedNanos;
    }

    public Duration uptime() {
        return Duration.ofNanos(System.nanoTime() - launchedNanos);
    }

    public Tail stdoutTail() {
        return stdoutTail;
    }

    public Tail stderrTail() {
        return stderrTail;
    }
}
