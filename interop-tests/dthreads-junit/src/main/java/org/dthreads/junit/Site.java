package org.dthreads.junit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import org.dthreads.junit.internal.ControlChannel;
import org.dthreads.junit.internal.Protocol;
import org.dthreads.junit.internal.SiteCommandLine;
import org.dthreads.junit.internal.SiteDumps;
import org.dthreads.junit.internal.SiteProcess;
import org.dthreads.junit.internal.SiteRuntimeImpl;

/**
 * A running site: one JVM started by a {@link SiteCluster} from a {@link SiteSpec}.
 *
 * <h2>Threading contract</h2>
 * Thread-safe. Two daemon threads per site read its stdout and stderr; every blocking method
 * ({@link #endpoint}, {@link #run}) returns as soon as the answer arrives or the site dies, and
 * the bounded variants also when their bound passes. A site's output is always drained, so a
 * chatty site never blocks on a full pipe.
 */
public final class Site {

    // Launching and its command line are SiteCommandLine's job, the process and its pipes
    // SiteProcess's, the line protocol over them ControlChannel's; a Site is the public face.

    private static final System.Logger LOG = System.getLogger(Site.class.getName());
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SiteSpec spec;
    private final SiteProcess process;
    private final ControlChannel channel;

    private Site(SiteSpec spec, SiteCluster cluster, String token, Process process, long launchedNanos) {
        this.spec = spec;
        this.process = new SiteProcess(spec.name(), spec.echoOutput(), process, launchedNanos);
        this.channel = new ControlChannel(spec.name(), token, this.process, () -> cluster.onHello(this),
                added -> cluster.onEndpoints(this, added));
    }

    // ------------------------------------------------------------------ launching

    static Site launch(SiteSpec spec, SiteCluster cluster, Path tempDir) {
        String token = HexFormat.of().formatHex(randomBytes());
        List<String> command;
        try {
            command = SiteCommandLine.command(spec, token, tempDir, NetworkNamespaces::ipCommand);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare site " + spec.name(), e);
        }
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(spec.environment());
        LOG.log(System.Logger.Level.DEBUG, () -> "starting site " + spec.name() + ": " + String.join(" ", command));
        long t0 = System.nanoTime();
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new AssertionError("site " + spec.name() + " could not be started: " + e.getMessage()
                    + "\ncommand: " + String.join(" ", command), e);
        }
        Site site = new Site(spec, cluster, token, p, t0);
        site.process.start(site.channel::onStdoutLine, site.channel::siteEnded);
        return site;
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[8];
        RANDOM.nextBytes(b);
        return b;
    }

    // ------------------------------------------------------------------ cluster side

    /**
     * Waits until the site reports ready, at most {@code timeout} from now; throws AssertionError
     * (with dumps) otherwise.
     */
    void awaitReady(Duration timeout) {
        long waitFromMs = uptime().toMillis();
        try {
            channel.awaitReady(timeout);
        } catch (ExecutionException e) {
            if (exitCode().orElse(-1) == SiteRuntimeImpl.AGENT_NOT_RUNNING_EXIT && channel.startFailure() != null) {
                throw new AssertionError("site " + name() + " was launched with the dthreads agent (" + spec.javaAgent()
                        + "), but the agent is not running in it: " + e.getCause().getMessage(), e.getCause());
            }
            throw new AssertionError("site " + name() + " died before it was ready: " + e.getCause().getMessage(),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("site " + name() + " was not ready within " + timeout.toMillis()
                    + " ms (counted from when the cluster began waiting for it, " + waitFromMs + " ms after its launch)\n"
                    + report().format());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for site " + name());
        }
    }

    void send(String line) {
        process.send(line);
    }

    boolean diedUnexpectedly() {
        return process.diedUnexpectedly();
    }

    boolean isHelloDone() {
        return channel.isHelloDone();
    }

    boolean controlEnabled() {
        return channel.controlEnabled();
    }

    void kill(Duration grace) {
        process.kill(grace);
    }

    void killNow() {
        process.killNow();
    }

    // ------------------------------------------------------------------ public API

    /**
     * The site's name.
     *
     * @return the name from the site's {@link SiteSpec}, unique within its cluster
     */
    public String name() {
        return spec.name();
    }

    /**
     * The spec it was started from.
     *
     * @return the site's spec
     */
    public SiteSpec spec() {
        return spec;
    }

    /**
     * The site JVM's process id (with a network namespace too: {@code ip netns exec} execs java).
     *
     * @return the operating system's process id of the site JVM
     */
    public long pid() {
        return process.pid();
    }

    /**
     * The site's process, for {@link ProcessHandle#descendants()} and the like.
     *
     * @return a handle to the site JVM's process
     */
    public ProcessHandle processHandle() {
        return process.handle();
    }

    /**
     * Whether the site JVM is running.
     *
     * @return {@code true} if the site's process has not exited
     */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * The exit code once the site has ended.
     *
     * @return the process's exit value, or empty while it is still running
     */
    public OptionalInt exitCode() {
        return process.exitCode();
    }

    /**
     * Time from launching the JVM to its READY line, or empty if it is not ready (yet).
     *
     * @return the site's startup time, or empty if it has not reported ready
     */
    public java.util.Optional<Duration> startupTime() {
        long r = channel.readyNanos();
        return r == 0 ? java.util.Optional.empty()
                : java.util.Optional.of(Duration.ofNanos(r - process.launchedNanos()));
    }

    /**
     * Time since the JVM was launched.
     *
     * @return the time elapsed since the site's process was launched (still growing after it exits)
     */
    public Duration uptime() {
        return process.uptime();
    }

    /**
     * The endpoints published so far.
     *
     * @return an immutable copy of the endpoints the site has published, by key
     */
    public Map<String, String> endpoints() {
        return channel.endpoints();
    }

    /**
     * The endpoint {@code key}, waiting up to 10 s for the site to publish it.
     *
     * @param key the name under which the site publishes the endpoint
     * @return the endpoint's value
     * @throws SiteException if it does not arrive in time or the site dies first
     */
    public String endpoint(String key) {
        return endpoint(key, Duration.ofSeconds(10));
    }

    /**
     * The endpoint {@code key}, waiting up to {@code timeout} for the site to publish it.
     *
     * @param key the name under which the site publishes the endpoint
     * @param timeout how long to wait for the site to publish it
     * @return the endpoint's value
     * @throws SiteException if it does not arrive in time or the site dies first
     */
    public String endpoint(String key, Duration timeout) {
        return channel.awaitEndpoint(key, timeout);
    }

    /**
     * Runs the site's step {@code step} (registered with {@link SiteContext#step}) on a new thread
     * of the site and waits, without a bound, for its result. Put it inside
     * {@link SiteCluster#assertCompletesWithin} or {@link SiteCluster#assertDeadlocksWithin} to
     * bound it.
     *
     * @param step the name the step was registered under with {@link SiteContext#step}
     * @param args the arguments passed to the step's {@link SiteContext.Step#run}
     * @return what the step returned
     * @throws SiteException if the step threw (with the site-side stack trace), the site has no
     *     such step or no control channel, or the site died
     */
    public String run(String step, String... args) {
        return run(null, step, args);
    }

    /**
     * {@link #run(String, String...)} with a bound; throws {@link SiteException} when it passes.
     *
     * @param timeout how long to wait for the step's result; null waits without a bound
     * @param step the name the step was registered under with {@link SiteContext#step}
     * @param args the arguments passed to the step's {@link SiteContext.Step#run}
     * @return what the step returned (empty if it returned null)
     * @throws SiteException if the step did not finish within {@code timeout}, threw (with the site-side
     *     stack trace), the site has no such step or no control channel, or the site died
     */
    public String run(Duration timeout, String step, String... args) {
        channel.requireControl();
        List<String> fields = new ArrayList<>();
        fields.add(step);
        for (String a : args) {
            fields.add(Protocol.encodeArg(a));
        }
        String[] r;
        try {
            r = channel.request("RUN", timeout, fields.toArray(new String[0]));
        } catch (TimeoutException e) {
            throw new SiteException(name(), "step " + step + " on site " + name() + " did not finish within "
                    + timeout.toMillis() + " ms");
        }
        if (!"OK".equals(r[0])) {
            throw new SiteException(name(), "step " + step + " failed on site " + name() + ":\n" + r[1]);
        }
        return r[1];
    }

    /**
     * A thread dump of the site, every frame with locked monitors and owned synchronizers. Asked of
     * the site's control thread first (it answers even when the application is deadlocked); taken
     * from outside with {@code jcmd <pid> Thread.print} or {@code jstack} when the site does not
     * answer within {@code timeout}. Never throws: failures are described in the text.
     *
     * @param timeout how long to wait for the site's own answer before dumping it from outside
     * @return the thread dump, or a sentence saying why there is none (for example that the site is not
     *     running)
     */
    public String threadDump(Duration timeout) {
        return SiteDumps.threadDump(name(), process, channel, spec.javaExecutable(), timeout);
    }

    /**
     * {@link #threadDump(Duration)} with a 3 s bound on the in-site answer.
     *
     * @return the thread dump, or a sentence saying why there is none
     */
    public String threadDump() {
        return threadDump(Duration.ofSeconds(3));
    }

    /**
     * The site's dthreads monitor dump, or a sentence saying why there is none (no monitor runtime
     * on the site's class path, no answer within {@code timeout}, site not running). Never throws.
     *
     * @param timeout how long to wait for the site's answer
     * @return the text of the site's {@code MonitorDump}, or a sentence saying why there is none
     */
    public String monitorDump(Duration timeout) {
        return SiteDumps.monitorDump(name(), process, channel, timeout);
    }

    /**
     * {@link #monitorDump(Duration)} with a 3 s bound.
     *
     * @return the site's monitor dump, or a sentence saying why there is none
     */
    public String monitorDump() {
        return monitorDump(Duration.ofSeconds(3));
    }

    /**
     * The last lines (at most 200) of the site's standard output, protocol lines excluded.
     *
     * @return the lines, each ending in a newline, after a {@code [... N earlier lines dropped]} line when
     *     older ones were dropped; empty if there were none
     */
    public String stdoutTail() {
        return process.stdoutTail().render("");
    }

    /**
     * The last lines (at most 200) of the site's standard error.
     *
     * @return the lines, each ending in a newline, after a {@code [... N earlier lines dropped]} line when
     *     older ones were dropped; empty if there were none
     */
    public String stderrTail() {
        return process.stderrTail().render("");
    }

    /**
     * A snapshot for diagnostics: dumps, tails, state. Never throws.
     *
     * @return a report with the site's state, endpoints, thread and monitor dumps (each bounded to 3 s)
     *     and output tails
     */
    public SiteReport report() {
        return report(Duration.ofSeconds(3));
    }

    /**
     * {@link #report()} with another bound on each dump's in-site answer (then jcmd is used for the threads). Never
     * throws.
     *
     * @param dumpTimeout how long the site gets to answer each dump request
     * @return a report with the site's state, endpoints, thread and monitor dumps and output tails
     */
    public SiteReport report(Duration dumpTimeout) {
        boolean alive = process.isAlive();
        String threads = threadDump(dumpTimeout);
        String monitors = monitorDump(dumpTimeout);
        if (!process.isAlive()) {
            process.awaitDrained();
        }
        return new SiteReport(name(), pid(), alive && process.isAlive(), exitCode(), uptime(), endpoints(), threads,
                monitors, process.stdoutTail().render("  "), process.stderrTail().render("  "));
    }

    /**
     * Asks the site to exit with {@code code} ({@code System.exit}, forced after 2 s) and waits up to
     * {@code timeout} for it to end. The cluster then treats its end as expected.
     *
     * @param code the exit status the site passes to {@code System.exit}
     * @param timeout how long to wait for the site's process to end
     * @return whether it ended in time
     */
    public boolean exit(int code, Duration timeout) {
        process.endExpected();
        send("EXIT " + code);
        return process.awaitEnd(timeout);
    }

    /**
     * Kills the site JVM at once with SIGKILL ({@link ProcessHandle#destroyForcibly()}, its descendants
     * too), as a crash ends it: no shutdown hook runs and the operating system closes its sockets. For
     * fault tests (a site dies mid-chain). The cluster treats this end as expected, so the other
     * sites' scenarios go on being asserted; blocking calls on this site return with a
     * {@link SiteException}.
     *
     * @param timeout how long to wait for the process to end
     * @return whether it ended in time
     */
    public boolean crash(Duration timeout) {
        killNow();
        return process.awaitEnd(timeout);
    }

    @Override
    public String toString() {
        return "Site[" + name() + ", pid " + pid() + (process.isAlive() ? ", alive" : ", exited") + "]";
    }
}
