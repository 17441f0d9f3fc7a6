package org.dthreads.junit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

import org.dthreads.junit.internal.ClusterResources;
import org.dthreads.junit.internal.ParallelSites;
import org.dthreads.junit.internal.Protocol;
import org.dthreads.junit.internal.ScenarioAssertions;
import org.junit.jupiter.api.function.ThrowingSupplier;

/**
 * A set of {@link Site sites} started for one test, and the scenario assertions over them.
 *
 * <pre>{@code
 * try (SiteCluster cluster = new SiteCluster()) {
 *     List<Site> s = cluster.start(SiteSpec.app("A", SiteA.class), SiteSpec.app("B", SiteB.class));
 *     cluster.assertCompletesWithin(Duration.ofSeconds(5), () -> s.get(0).run("zigzag"));
 * }
 * }</pre>
 *
 * <p>Sites of one {@link #start(SiteSpec...)} call are launched in parallel. While running, every
 * site receives every other site's endpoints ({@link SiteContext#peerEndpoint}), so no site needs a
 * fixed port. Failures ({@link AssertionError}) carry a {@link SiteReport} of every site: thread
 * dump, dthreads monitor dump, stderr and stdout tails. After a failed start, a failed or timed-out
 * scenario, and after a deadlock has been proven, every site is killed ({@code destroy}, then
 * {@code destroyForcibly} after the grace period, descendants included). {@link #close()} kills
 * whatever is left and deletes the cluster's temporary directory; a JVM shutdown hook does the same
 * if the test JVM exits first, and each site ends itself when the test JVM's end closes its stdin.
 *
 * <h2>Threading contract</h2>
 * Thread-safe. The assertion methods run the scenario on a new daemon thread of the test JVM and
 * wait on the calling thread; a scenario thread that is still stuck when its sites are killed ends
 * with a {@link SiteException}.
 */
public final class SiteCluster implements AutoCloseable {

    /** Options of a {@link SiteCluster}. Not thread-safe; build once. */
    public static final class Builder {
        private Duration readyTimeout = Duration.ofSeconds(30);
        private Duration killGrace = Duration.ofSeconds(1);
        private Duration dumpTimeout = Duration.ofSeconds(3);
        private Duration pollInterval = Duration.ofMillis(10);
        private Duration evidenceTimeout = Duration.ofSeconds(30);

        private Builder() {}

        /**
         * How long each site may take to report ready (default 30 s). Every site gets the whole bound, counted
         * from when the cluster begins to wait for it: the sites of one {@link SiteCluster#start(List)} are
         * launched together and waited for in order, so the first one's bound runs from (about) its launch and a
         * later one's from when the sites before it were ready. A slow site thus does not use up the time of the
         * next (on a starved machine the sites of a batch start slowly together); a batch of n sites fails after
         * at most n times this bound.
         *
         * @param d the ready timeout
         * @return this builder
         * @throws NullPointerException if {@code d} is null
         */
        public Builder readyTimeout(Duration d) {
            readyTimeout = Objects.requireNonNull(d);
            return this;
        }

        /**
         * How long a killed site gets between SIGTERM and SIGKILL (default 1 s).
         *
         * @param d the grace period
         * @return this builder
         * @throws NullPointerException if {@code d} is null
         */
        public Builder killGrace(Duration d) {
            killGrace = Objects.requireNonNull(d);
            return this;
        }

        /**
         * How long a site gets to answer a dump request before jcmd is used (default 3 s).
         *
         * @param d the dump timeout
         * @return this builder
         * @throws NullPointerException if {@code d} is null
         */
        public Builder dumpTimeout(Duration d) {
            dumpTimeout = Objects.requireNonNull(d);
            return this;
        }

        /**
         * How often the scenario assertions poll (default 10 ms).
         *
         * @param d the polling interval
         * @return this builder
         * @throws NullPointerException if {@code d} is null
         */
        public Builder pollInterval(Duration d) {
            pollInterval = Objects.requireNonNull(d);
            return this;
        }

        /**
         * How long {@link SiteCluster#assertDeadlocksWithin(Duration, ThrowingSupplier, String, Predicate)} keeps
         * taking evidence, after the scenario has been stuck for its bound, until the evidence shows what the
         * test expects (default 30 s).
         *
         * @param d the evidence timeout
         * @return this builder
         * @throws NullPointerException if {@code d} is null
         */
        public Builder evidenceTimeout(Duration d) {
            evidenceTimeout = Objects.requireNonNull(d);
            return this;
        }

        /**
         * A new cluster with these options.
         *
         * @return a new, empty cluster with its own temporary directory; close it when done
         */
        public SiteCluster build() {
            return new SiteCluster(this);
        }
    }

    private final Duration readyTimeout;
    private final Duration killGrace;
    private final Duration dumpTimeout;
    private final List<Site> sites = new CopyOnWriteArrayList<>();
    private final ClusterResources resources;
    private final ScenarioAssertions scenarios;
    private volatile boolean closed;

    /** A cluster with default options. */
    public SiteCluster() {
        this(new Builder());
    }

    private SiteCluster(Builder b) {
        this.readyTimeout = b.readyTimeout;
        this.killGrace = b.killGrace;
        this.dumpTimeout = b.dumpTimeout;
        this.resources = new ClusterResources(this::killAllNow);
        this.scenarios = new ScenarioAssertions(() -> sites, Site::diedUnexpectedly, this::reports, this::killAll,
                () -> closed, b.pollInterval, b.evidenceTimeout);
    }

    /**
     * Options for a cluster.
     *
     * @return a new builder with the default options
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The cluster's temporary directory (deleted by {@link #close()}).
     *
     * @return the path of the directory, created when the cluster was built
     */
    public Path tempDir() {
        return resources.tempDir();
    }

    // ------------------------------------------------------------------ starting

    /**
     * Starts one site and waits until it is ready; see {@link #start(List)}.
     *
     * @param spec the site to start; its name must not be used by a site already started
     * @return the started, ready site
     * @throws AssertionError if the site dies before it is ready or is not ready in time; every site of
     *     the cluster has then been killed
     */
    public Site start(SiteSpec spec) {
        return start(List.of(spec)).get(0);
    }

    /**
     * Starts sites in parallel and waits until all are ready; see {@link #start(List)}.
     *
     * @param specs the sites to start; their names must be distinct and not used by a site already started
     * @return the sites, in the order of {@code specs}
     * @throws AssertionError if a site dies before it is ready or is not ready in time; every site of
     *     the cluster has then been killed
     */
    public List<Site> start(SiteSpec... specs) {
        return start(List.of(specs));
    }

    /**
     * Launches every spec's JVM at once, then waits until each reports ready, in order, each within
     * the ready timeout counted from when the wait for it begins ({@link Builder#readyTimeout}).
     *
     * @param specs the sites to start; their names must be distinct and not used by a site already started
     * @return the sites, in the order of {@code specs}
     * @throws AssertionError if a site dies before it is ready (the message has its exit code,
     *     start failure and stderr tail) or is not ready in time (the message has its dumps); every
     *     site of the cluster has then been killed
     * @throws IllegalArgumentException if two sites would have the same name
     * @throws IllegalStateException if the cluster is closed
     */
    public List<Site> start(List<SiteSpec> specs) {
        if (closed) {
            throw new IllegalStateException("cluster is closed");
        }
        Set<String> names = new HashSet<>();
        sites.forEach(s -> names.add(s.name()));
        for (SiteSpec spec : specs) {
            if (!names.add(spec.name())) {
                throw new IllegalArgumentException("duplicate site name: " + spec.name());
            }
        }
        List<Site> started = new ArrayList<>();
        try {
            for (SiteSpec spec : specs) {
                Site s = Site.launch(spec, this, resources.tempDir());
                sites.add(s);
                started.add(s);
            }
            for (Site s : started) {
                s.awaitReady(readyTimeout);
            }
        } catch (AssertionError | RuntimeException e) {
            killAll();
            throw e;
        }
        return started;
    }

    /**
     * The site named {@code name}.
     *
     * @param name the name of a site started in this cluster
     * @return the site with that name
     * @throws IllegalArgumentException if no site of this cluster has that name
     */
    public Site site(String name) {
        return sites.stream().filter(s -> s.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no site named " + name + " in " + sites));
    }

    /**
     * All sites started so far, in start order.
     *
     * @return an immutable copy of the list of sites
     */
    public List<Site> sites() {
        return List.copyOf(sites);
    }

    // called from a site's stdout thread
    synchronized void onHello(Site site) {
        for (Site other : sites) {
            if (other != site) {
                other.endpoints().forEach((k, v) -> site.send(peerLine(other, k, v)));
            }
        }
    }

    // called from a site's stdout thread
    synchronized void onEndpoints(Site site, Map<String, String> added) {
        for (Site other : sites) {
            if (other != site && other.isHelloDone() && other.controlEnabled() && other.isAlive()) {
                added.forEach((k, v) -> other.send(peerLine(site, k, v)));
            }
        }
    }

    private static String peerLine(Site from, String key, String value) {
        return "PEER " + Protocol.encode(from.name()) + " " + Protocol.pair(key, value);
    }

    // ------------------------------------------------------------------ scenario assertions

    /**
     * Runs {@code scenario} and asserts that it completes within {@code bound}.
     *
     * @param <T> the type of the scenario's result
     * @param bound how long the scenario may take
     * @param scenario the test code to run, typically calls into the sites
     * @return the scenario's result
     * @throws AssertionError if it does not complete in time, throws, or a site dies meanwhile; the
     *     message holds every site's thread dump, monitor dump and output tails, and every site has
     *     been killed
     */
    public <T> T assertCompletesWithin(Duration bound, ThrowingSupplier<T> scenario) {
        return scenarios.assertCompletesWithin(bound, scenario);
    }

    /**
     * The control of a regression suite: runs {@code scenario} and asserts that it does <em>not</em>
     * complete within {@code bound} while every site stays alive, that is that it is stuck rather
     * than slow-and-done or crashed. Use it on a setup without dthreads to prove that the test can
     * detect the deadlock that dthreads removes.
     *
     * <p>All sites are killed afterwards in every case (a deadlocked cluster is of no further use).
     *
     * @param bound how long the scenario is given before it counts as stuck
     * @param scenario the test code to run, expected to deadlock
     * @return the dumps of every site, taken while stuck
     * @throws AssertionError if the scenario completes or fails, or a site dies, within the bound
     *     or while the evidence is being collected
     */
    public DeadlockEvidence assertDeadlocksWithin(Duration bound, ThrowingSupplier<?> scenario) {
        return assertDeadlocksWithin(bound, scenario, "every site alive", e -> true);
    }

    /**
     * {@link #assertDeadlocksWithin(Duration, ThrowingSupplier)} for a test that reads something in
     * the evidence (a thread in some frame, the JVM's own deadlock check): once the scenario has been
     * stuck for {@code bound}, the evidence is taken again (every site's reports, about every 100
     * ms) until {@code shows} accepts it, for at most the cluster's evidence timeout
     * ({@link Builder#evidenceTimeout}, 30 s by default). A stuck scenario on a starved machine may
     * not have reached the state the test looks for when the bound passes; one reading would then
     * fail a correct test. Every reading checks again that the scenario is still stuck and every
     * site alive.
     *
     * @param bound how long the scenario is given before it counts as stuck
     * @param scenario the test code to run, expected to deadlock
     * @param expected what {@code shows} looks for, for the failure message
     * @param shows whether the evidence shows what the test expects; the returned evidence satisfies it
     * @return the dumps of every site, taken while stuck, the first that {@code shows} accepted
     * @throws AssertionError if the scenario completes or fails, or a site dies, within the bound
     *     or while the evidence is being collected, or the evidence does not show {@code expected}
     *     within the evidence timeout (the message then holds the last reports)
     * @throws NullPointerException if an argument is null
     */
    public DeadlockEvidence assertDeadlocksWithin(Duration bound, ThrowingSupplier<?> scenario, String expected,
            Predicate<? super DeadlockEvidence> shows) {
        return scenarios.assertDeadlocksWithin(bound, scenario, expected, shows);
    }

    // ------------------------------------------------------------------ diagnostics and cleanup

    /**
     * A {@link SiteReport} of every site, collected in parallel. Never throws.
     *
     * @return one report per site, in start order; a site whose report failed gets a report that says so
     */
    public List<SiteReport> reports() {
        return ParallelSites.reports(sites, dumpTimeout);
    }

    /**
     * Every site's report, rendered: what the assertion failures contain.
     *
     * @return the concatenated {@link SiteReport#format()} of {@link #reports()}
     */
    public String diagnostics() {
        StringBuilder sb = new StringBuilder();
        reports().forEach(r -> sb.append(r.format()));
        return sb.toString();
    }

    /** Kills every site (in parallel: SIGTERM, SIGKILL after the grace period, descendants too). */
    public void killAll() {
        ParallelSites.kill(sites, s -> s.kill(killGrace));
    }

    /**
     * Makes {@code resource} close with this cluster, after the sites are killed (for example the
     * {@link NetworkNamespaces} the sites run in). Resources close in reverse order of adding.
     *
     * @param <C> the resource's type
     * @param resource the resource to close with the cluster
     * @return {@code resource}, for chaining
     * @throws NullPointerException if {@code resource} is null
     */
    public synchronized <C extends AutoCloseable> C closeWith(C resource) {
        resources.closeWith(Objects.requireNonNull(resource));
        return resource;
    }

    /** For the test JVM's exit: SIGKILL to every site, without waiting. */
    private void killAllNow() {
        for (Site s : sites) {
            s.killNow();
        }
    }

    /** Kills every site, closes the resources given to {@link #closeWith}, deletes the temporary directory. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        killAll();
        resources.release();
    }

    /**
     * Whether {@link #close()} has been called.
     *
     * @return {@code true} once the cluster is closed
     */
    public boolean isClosed() {
        return closed;
    }

}
