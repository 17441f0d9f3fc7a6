package org.dthreads.junit;

import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Pattern;

import org.dthreads.junit.internal.LineReader;
import org.dthreads.junit.internal.Processes;
import org.dthreads.junit.internal.Protocol;
import org.dthreads.junit.internal.SiteRuntimeImpl;
import org.dthreads.junit.internal.Tail;
import org.dthreads.junit.internal.ThreadDumps;

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

    private static final System.Logger LOG = System.getLogger(Site.class.getName());
    private static final Pattern GC_FLAG = Pattern.compile("-XX:\\+Use\\w*GC");
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int TAIL_LINES = 200;
    private static final int TAIL_LINE_CHARS = 2000;
    private static final int MAX_LINE_BYTES = 32 << 20;
    private static final String DTHREADS_AGENT_CLASS = "org.dthreads.agent.DThreadsAgent";

    private final SiteSpec spec;
    private final SiteCluster cluster;
    private final String token;
    private final Process process;
    private final long launchedNanos;
    private final Writer stdin;
    private final Tail stdoutTail = new Tail(TAIL_LINES, TAIL_LINE_CHARS);
    private final Tail stderrTail = new Tail(TAIL_LINES, TAIL_LINE_CHARS);
    private final CountDownLatch drained = new CountDownLatch(2);
    private final CompletableFuture<Void> hello = new CompletableFuture<>();
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final Map<String, String> endpoints = Collections.synchronizedMap(new LinkedHashMap<>());
    private final Object endpointSignal = new Object();
    private final Map<Long, CompletableFuture<String[]>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final CompletableFuture<Integer> exited = new CompletableFuture<>();
    private volatile boolean killedByHarness;
    private volatile long readyNanos;
    private volatile String startFailure;
    private volatile boolean controlEnabled;

    private Site(SiteSpec spec, SiteCluster cluster, String token, Process process, long launchedNanos) {
        this.spec = spec;
        this.cluster = cluster;
        this.token = token;
        this.process = process;
        this.launchedNanos = launchedNanos;
        this.stdin = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
    }

    // ------------------------------------------------------------------ launching

    static Site launch(SiteSpec spec, SiteCluster cluster, Path tempDir) {
        String token = HexFormat.of().formatHex(randomBytes());
        List<String> command;
        try {
            command = command(spec, token, tempDir);
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
        site.startPumps();
        // not on the process reaper thread: onExit waits for the output to drain
        p.onExit().whenCompleteAsync((proc, err) -> site.onExit(), Site::daemon);
        return site;
    }

    private static void daemon(Runnable r) {
        Thread t = new Thread(r, "dthreads-site-exit");
        t.setDaemon(true);
        t.start();
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[8];
        RANDOM.nextBytes(b);
        return b;
    }

    static List<String> command(SiteSpec spec, String token, Path tempDir) throws IOException {
        List<String> cmd = new ArrayList<>();
        NetworkNamespaces.Namespace ns = spec.networkNamespace();
        if (ns != null) {
            cmd.addAll(List.of(NetworkNamespaces.ipCommand(), "netns", "exec", ns.name()));
        }
        cmd.add(spec.javaExecutable().toString());
        if (spec.fastStart()) {
            boolean userGc = spec.jvmFlags().stream().anyMatch(f -> GC_FLAG.matcher(f).matches());
            for (String f : SiteSpec.FAST_START_FLAGS) {
                if (!(userGc && GC_FLAG.matcher(f).matches())) {
                    cmd.add(f);
                }
            }
        }
        Map<String, String> props = new LinkedHashMap<>();
        props.put("java.rmi.server.hostname", ns != null ? ns.address() : "127.0.0.1");
        props.put("dthreads.site.name", spec.name());
        if (!spec.controlChannel()) {
            props.put("dthreads.site.control", "false");
        }
        props.putAll(spec.systemProperties());
        if (spec.javaAgent() != null && isDthreadsAgent(spec.javaAgent())) {
            props.put(SiteRuntimeImpl.EXPECT_AGENT_PROPERTY, "true");
        }
        props.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        if (spec.javaAgent() != null) {
            cmd.add("-javaagent:" + spec.javaAgent()
                    + (spec.javaAgentOptions() != null ? "=" + spec.javaAgentOptions() : ""));
        }
        cmd.addAll(spec.jvmFlags());
        List<String> cp = new ArrayList<>(spec.classpath());
        String kit = kitLocation();
        if (kit != null && !cp.contains(kit)) {
            cp.add(kit);
        }
        Path argFile = Files.createTempFile(tempDir, "site-" + spec.name() + "-", ".args");
        Files.writeString(argFile, "-cp\n" + quoteArg(String.join(File.pathSeparator, cp)) + "\n");
        cmd.add("@" + argFile);
        cmd.add(SiteMain.class.getName());
        cmd.add(spec.name());
        cmd.add(token);
        cmd.add(spec.isApp() ? "app" : "main");
        cmd.add(spec.className());
        cmd.addAll(spec.args());
        return cmd;
    }

    /** Whether {@code jar} is the dthreads agent: its manifest names the agent's premain class. */
    static boolean isDthreadsAgent(Path jar) {
        try (JarFile j = new JarFile(jar.toFile())) {
            Manifest m = j.getManifest();
            return m != null && DTHREADS_AGENT_CLASS.equals(m.getMainAttributes().getValue("Premain-Class"));
        } catch (IOException | SecurityException e) {
            return false; // not a readable jar: the JVM reports that itself
        }
    }

    /** Quotes one argument for a java {@code @argfile}. */
    private static String quoteArg(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    /** The jar or classes directory this kit was loaded from. */
    static String kitLocation() {
        CodeSource cs = SiteMain.class.getProtectionDomain().getCodeSource();
        if (cs == null || cs.getLocation() == null) {
            return null;
        }
        try {
            return Path.of(cs.getLocation().toURI()).toString();
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }

    private void startPumps() {
        pump(process.getInputStream(), "stdout", this::onStdoutLine);
        pump(process.getErrorStream(), "stderr", line -> {
            stderrTail.add(line);
            echo("[" + name() + " err] ", line);
        });
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
        }, "dthreads-site-" + name() + "-" + what);
        t.setDaemon(true);
        t.start();
    }

    private void echo(String prefix, String line) {
        if (spec.echoOutput()) {
            System.err.println(prefix + line);
        }
    }

    private void onStdoutLine(String line) {
        Protocol.Message m = Protocol.parse(line, token).orElse(null);
        if (m == null) {
            stdoutTail.add(line);
            echo("[" + name() + "] ", line);
            return;
        }
        try {
            switch (m.verb()) {
                case "HELLO" -> {
                    controlEnabled = !"control=false".equals(m.field(2));
                    hello.complete(null);
                    cluster.onHello(this);
                }
                case "ENDPOINT" -> addEndpoints(m.pairs(0));
                case "READY" -> {
                    addEndpoints(m.pairs(0));
                    readyNanos = System.nanoTime();
                    ready.complete(null);
                }
                case "REPLY" -> {
                    CompletableFuture<String[]> f = pending.remove(Long.parseLong(m.field(0)));
                    if (f != null) {
                        f.complete(new String[] {m.field(1), Protocol.decode(m.field(2) == null ? "" : m.field(2))});
                    }
                }
                case "FAILED" -> startFailure = Protocol.decode(m.field(0) == null ? "" : m.field(0));
                default -> stdoutTail.add(line);
            }
        } catch (RuntimeException e) {
            // malformed protocol line (garbage that happened to carry our token): keep it as output
            stdoutTail.add(line);
        }
    }

    private void addEndpoints(Map<String, String> add) {
        if (add.isEmpty()) {
            return;
        }
        endpoints.putAll(add);
        synchronized (endpointSignal) {
            endpointSignal.notifyAll();
        }
        cluster.onEndpoints(this, add);
    }

    private void onExit() {
        try {
            drained.await(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int code = process.exitValue();
        exited.complete(code);
        SiteException death = new SiteException(name(), deathMessage());
        ready.completeExceptionally(death);
        hello.completeExceptionally(death);
        pending.values().forEach(f -> f.completeExceptionally(death));
        pending.clear();
        synchronized (endpointSignal) {
            endpointSignal.notifyAll();
        }
    }

    /** "site A exited with code 1" plus the failure and stderr tail; for messages. */
    String deathMessage() {
        StringBuilder sb = new StringBuilder("site ").append(name()).append(" (pid ").append(pid()).append(") ");
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

    // ------------------------------------------------------------------ cluster side

    /**
     * Waits until the site reports ready, at most {@code timeout} from now; throws AssertionError
     * (with dumps) otherwise.
     */
    void awaitReady(Duration timeout) {
        long waitFromMs = uptime().toMillis();
        try {
            ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (exitCode().orElse(-1) == SiteRuntimeImpl.AGENT_NOT_RUNNING_EXIT && startFailure != null) {
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

    boolean diedUnexpectedly() {
        return !process.isAlive() && !killedByHarness;
    }

    boolean isHelloDone() {
        return hello.isDone() && !hello.isCompletedExceptionally();
    }

    boolean controlEnabled() {
        return controlEnabled;
    }

    void kill(Duration grace) {
        killedByHarness = true;
        if (process.isAlive()) {
            Processes.killTree(process.toHandle(), grace);
        }
        try {
            drained.await(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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

    void killNow() {
        killedByHarness = true;
        Processes.killTreeNow(process.toHandle());
    }

    private String[] request(String verb, Duration timeout, String... fields) throws TimeoutException {
        long id = ids.incrementAndGet();
        CompletableFuture<String[]> f = new CompletableFuture<>();
        pending.put(id, f);
        if (!process.isAlive()) {
            pending.remove(id);
            throw new SiteException(name(), deathMessage());
        }
        send(verb + " " + id + (fields.length > 0 ? " " + String.join(" ", fields) : ""));
        try {
            return timeout == null ? f.get() : f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof SiteException se ? new SiteException(name(), se.getMessage(), se)
                    : new SiteException(name(), String.valueOf(c), c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SiteException(name(), "interrupted waiting for site " + name(), e);
        } finally {
            pending.remove(id);
        }
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
        return process.toHandle();
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
        return process.isAlive() ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
    }

    /**
     * Time from launching the JVM to its READY line, or empty if it is not ready (yet).
     *
     * @return the site's startup time, or empty if it has not reported ready
     */
    public java.util.Optional<Duration> startupTime() {
        long r = readyNanos;
        return r == 0 ? java.util.Optional.empty() : java.util.Optional.of(Duration.ofNanos(r - launchedNanos));
    }

    /**
     * Time since the JVM was launched.
     *
     * @return the time elapsed since the site's process was launched (still growing after it exits)
     */
    public Duration uptime() {
        return Duration.ofNanos(System.nanoTime() - launchedNanos);
    }

    /**
     * The endpoints published so far.
     *
     * @return an immutable copy of the endpoints the site has published, by key
     */
    public Map<String, String> endpoints() {
        synchronized (endpoints) {
            return Map.copyOf(endpoints);
        }
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
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (endpointSignal) {
            while (true) {
                String v = endpoints.get(key);
                if (v != null) {
                    return v;
                }
                if (!process.isAlive() && exited.isDone()) {
                    throw new SiteException(name(), "no endpoint '" + key + "': " + deathMessage());
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new SiteException(name(), "site " + name() + " published no endpoint '" + key + "' within "
                            + timeout.toMillis() + " ms; it has " + endpoints().keySet());
                }
                try {
                    endpointSignal.wait(Math.max(1, Math.min(left / 1_000_000, 200)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SiteException(name(), "interrupted", e);
                }
            }
        }
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
        if (!controlEnabled && hello.isDone()) {
            throw new SiteException(name(), "site " + name() + " has no control channel (SiteSpec.controlChannel(false))");
        }
        List<String> fields = new ArrayList<>();
        fields.add(step);
        for (String a : args) {
            fields.add(Protocol.encodeArg(a));
        }
        String[] r;
        try {
            r = request("RUN", timeout, fields.toArray(new String[0]));
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
        if (!process.isAlive()) {
            return "(no thread dump: " + name() + " is not running)";
        }
        if (controlEnabled && isHelloDone()) {
            try {
                String[] r = request("THREADS", timeout);
                if ("OK".equals(r[0])) {
                    return r[1];
                }
            } catch (TimeoutException | SiteException e) {
                // fall back
            }
        }
        if (!process.isAlive()) {
            return "(no thread dump: " + name() + " is not running)";
        }
        return ThreadDumps.dumpExternal(pid(), spec.javaExecutable(), Duration.ofSeconds(10));
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
        if (!process.isAlive()) {
            return "(no monitor dump: " + name() + " is not running)";
        }
        if (!controlEnabled || !isHelloDone()) {
            return "(no monitor dump: site " + name() + " has no control channel up)";
        }
        try {
            String[] r = request("MONITORS", timeout);
            return r[1];
        } catch (TimeoutException e) {
            return "(no monitor dump: site " + name() + " did not answer within " + timeout.toMillis() + " ms)";
        } catch (SiteException e) {
            return "(no monitor dump: " + e.getMessage() + ")";
        }
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
        return stdoutTail.render("");
    }

    /**
     * The last lines (at most 200) of the site's standard error.
     *
     * @return the lines, each ending in a newline, after a {@code [... N earlier lines dropped]} line when
     *     older ones were dropped; empty if there were none
     */
    public String stderrTail() {
        return stderrTail.render("");
    }

    /**
     * A snapshot for diagnostics: dumps, tails, state. Never throws.
     *
     * @return a report with the site's state, endpoints, thread and monitor dumps (each bounded to 3 s)
     *     and output tails
     */
    public SiteReport report() {
        boolean alive = process.isAlive();
        String threads = threadDump();
        String monitors = monitorDump();
        if (!process.isAlive()) {
            try {
                drained.await(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return new SiteReport(name(), pid(), alive && process.isAlive(), exitCode(), uptime(), endpoints(), threads,
                monitors, stdoutTail.render("  "), stderrTail.render("  "));
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
        killedByHarness = true;
        send("EXIT " + code);
        try {
            process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (Exception e) {
            return false;
        }
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
        try {
            process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "Site[" + name() + ", pid " + pid() + (process.isAlive() ? ", alive" : ", exited") + "]";
    }
}
