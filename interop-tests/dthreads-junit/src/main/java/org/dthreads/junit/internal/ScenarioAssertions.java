package org.dthreads.junit.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.dthreads.junit.DeadlockEvidence;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteReport;
import org.junit.jupiter.api.function.ThrowingSupplier;

/**
 * A cluster's scenario assertions ({@code SiteCluster.assertCompletesWithin} and
 * {@code assertDeadlocksWithin}): the scenario runs on its own thread while the caller polls for
 * its end, a site's death or the bound; a failure is an {@link AssertionError} holding every
 * site's report, after which every site is killed. A deadlock is proven by evidence taken while
 * the scenario is stuck and every site alive.
 *
 * <h2>Threading contract</h2>
 * Thread-safe. Each assertion starts one daemon thread ({@code dthreads-scenario-N}) for the
 * scenario and waits on the calling thread; a scenario thread still stuck when its sites are killed
 * is interrupted and ends with a {@code SiteException} from its blocked call.
 */
public final class ScenarioAssertions {

    private static final AtomicInteger SCENARIOS = new AtomicInteger();
    /** How often {@link #assertDeadlocksWithin} takes the evidence again; a round takes every site's dumps. */
    private static final Duration EVIDENCE_POLL = Duration.ofMillis(100);

    private final Supplier<List<Site>> sites;
    private final Predicate<Site> diedUnexpectedly;
    private final Supplier<List<SiteReport>> reports;
    private final Runnable killAll;
    private final BooleanSupplier closed;
    private final Duration pollInterval;
    private final Duration evidenceTimeout;

    /**
     * Assertions over the cluster's {@code sites}: {@code diedUnexpectedly} tells a crash from an expected
     * end, {@code reports} takes every site's report, {@code killAll} kills every site, {@code closed}
     * tells whether the cluster is closed (no scenario may start then).
     */
    public ScenarioAssertions(Supplier<List<Site>> sites, Predicate<Site> diedUnexpectedly,
            Supplier<List<SiteReport>> reports, Runnable killAll, BooleanSupplier closed, Duration pollInterval,
            Duration evidenceTimeout) {
        this.sites = sites;
        this.diedUnexpectedly = diedUnexpectedly;
        this.reports = reports;
        this.killAll = killAll;
        this.closed = closed;
        this.pollInterval = pollInterval;
        this.evidenceTimeout = evidenceTimeout;
    }

    /** See {@code SiteCluster.assertCompletesWithin}. */
    public <T> T assertCompletesWithin(Duration bound, ThrowingSupplier<T> scenario) {
        Scenario<T> run = startScenario(scenario);
        long t0 = System.nanoTime();
        boolean finished = awaitScenario(run, bound, "scenario to complete within " + bound.toMillis() + " ms");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        if (!finished) {
            throw failAndKill("Scenario did not complete within " + bound.toMillis() + " ms (deadlocked or too slow).",
                    run, null);
        }
        if (run.result.isDone() && !run.result.isCompletedExceptionally()) {
            return run.result.join();
        }
        List<Site> dead = deadSitesSoon();
        if (!dead.isEmpty()) {
            throw failAndKill(deathHeader(dead, "during the scenario", ms), run, run.failure());
        }
        Throwable cause = run.failure();
        throw failAndKill("Scenario failed after " + ms + " ms: " + cause, run, cause);
    }

    /** See {@code SiteCluster.assertDeadlocksWithin(Duration, ThrowingSupplier, String, Predicate)}. */
    public DeadlockEvidence assertDeadlocksWithin(Duration bound, ThrowingSupplier<?> scenario, String expected,
            Predicate<? super DeadlockEvidence> shows) {
        Objects.requireNonNull(bound);
        Objects.requireNonNull(scenario);
        Objects.requireNonNull(expected);
        Objects.requireNonNull(shows);
        Scenario<?> run = startScenario(scenario);
        long t0 = System.nanoTime();
        boolean finished = awaitScenario(run, bound, "scenario to end (expected to deadlock)");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        if (finished) {
            List<Site> dead = deadSitesSoon();
            if (!dead.isEmpty()) {
                throw failAndKill("Expected a deadlock, but " + deathHeader(dead, "during the scenario", ms)
                        + " A crash is not a deadlock.", run, run.failure());
            }
            if (run.result.isCompletedExceptionally()) {
                throw failAndKill("Expected a deadlock, but the scenario failed after " + ms + " ms: " + run.failure(),
                        run, run.failure());
            }
            throw failAndKill("Expected a deadlock, but the scenario completed in " + ms + " ms with result "
                    + run.result.join() + ". The control proves nothing if it does not deadlock.", run, null);
        }
        AtomicReference<List<SiteReport>> last = new AtomicReference<>(List.of());
        boolean shown;
        try {
            Awaitility.await("evidence showing " + expected).atMost(evidenceTimeout).pollDelay(Duration.ZERO)
                    .pollInterval(EVIDENCE_POLL).pollInSameThread().until(() -> {
                        List<SiteReport> reports = this.reports.get();
                        last.set(reports);
                        return !deadSites().isEmpty() || run.result.isDone()
                                || shows.test(new DeadlockEvidence(bound, reports));
                    });
            shown = true;
        } catch (ConditionTimeoutException e) {
            shown = false;
        } catch (RuntimeException | AssertionError e) {
            throw failAndKill("Checking the evidence for " + expected + " threw " + e, run, e, last.get());
        }
        List<SiteReport> reports = last.get();
        List<Site> dead = deadSites();
        if (!dead.isEmpty() || run.result.isDone()) {
            String why = !dead.isEmpty() ? deathHeader(dead, "while its dumps were taken", ms)
                    : "the scenario ended while dumps were taken (slow, not deadlocked): "
                            + (run.result.isCompletedExceptionally() ? run.failure() : "completed");
            throw failAndKill("Expected a deadlock, but " + why, run, run.failure(), reports);
        }
        if (!shown) {
            throw failAndKill("The scenario was stuck with every site alive, but in "
                    + (System.nanoTime() - t0) / 1_000_000 + " ms (its bound " + bound.toMillis()
                    + " ms, then the evidence timeout " + evidenceTimeout.toMillis()
                    + " ms) the evidence never showed " + expected + ". The last reports:", run, null, reports);
        }
        DeadlockEvidence evidence = new DeadlockEvidence(bound, reports);
        killAll.run();
        run.thread.interrupt();
        return evidence;
    }

    private static final class Scenario<T> {
        final CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread;

        Throwable failure() {
            if (!result.isCompletedExceptionally()) {
                return null;
            }
            try {
                result.join();
                return null;
            } catch (java.util.concurrent.CompletionException e) {
                return e.getCause() != null ? e.getCause() : e;
            } catch (java.util.concurrent.CancellationException e) {
                return e;
            }
        }
    }

    private <T> Scenario<T> startScenario(ThrowingSupplier<T> scenario) {
        if (closed.getAsBoolean()) {
            throw new IllegalStateException("cluster is closed");
        }
        Scenario<T> run = new Scenario<>();
        run.thread = new Thread(() -> {
            try {
                run.result.complete(scenario.get());
            } catch (Throwable t) {
                run.result.completeExceptionally(t);
            }
        }, "dthreads-scenario-" + SCENARIOS.incrementAndGet());
        run.thread.setDaemon(true);
        run.thread.start();
        return run;
    }

    /** True if the scenario ended or a site died within the bound, false on timeout. */
    private boolean awaitScenario(Scenario<?> run, Duration bound, String alias) {
        try {
            Awaitility.await(alias).atMost(bound).pollDelay(Duration.ZERO).pollInterval(pollInterval)
                    .pollInSameThread().until(() -> run.result.isDone() || !deadSites().isEmpty());
            return true;
        } catch (ConditionTimeoutException e) {
            return false;
        }
    }

    private List<Site> deadSites() {
        List<Site> dead = new ArrayList<>();
        for (Site s : sites.get()) {
            if (diedUnexpectedly.test(s)) {
                dead.add(s);
            }
        }
        return dead;
    }

    /**
     * The sites that died, giving a scenario that failed (perhaps because a site died: its peers
     * may notice before this JVM reaps the process) 300 ms for the death to show.
     */
    private List<Site> deadSitesSoon() {
        try {
            Awaitility.await("a site's death to show").atMost(Duration.ofMillis(300)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(10)).pollInSameThread().until(() -> !deadSites().isEmpty());
        } catch (ConditionTimeoutException e) {
            // none died
        }
        return deadSites();
    }

    private static String deathHeader(List<Site> dead, String when, long ms) {
        StringBuilder sb = new StringBuilder();
        for (Site s : dead) {
            sb.append("site ").append(s.name()).append(" died ").append(when).append(" (exit code ")
                    .append(s.exitCode().isPresent() ? Integer.toString(s.exitCode().getAsInt()) : "?")
                    .append(", ").append(ms).append(" ms into it).");
        }
        return sb.toString();
    }

    private AssertionError failAndKill(String header, Scenario<?> run, Throwable cause) {
        return failAndKill(header, run, cause, reports.get());
    }

    private AssertionError failAndKill(String header, Scenario<?> run, Throwable cause, List<SiteReport> reports) {
        StringBuilder sb = new StringBuilder(header).append('\n');
        if (cause != null) {
            sb.append("--- scenario failure: ").append(cause).append('\n');
        }
        if (run.thread.isAlive()) {
            sb.append("--- test-side scenario thread \"").append(run.thread.getName()).append("\":\n");
            for (StackTraceElement e : run.thread.getStackTrace()) {
                sb.append("\tat ").append(e).append('\n');
            }
        }
        reports.forEach(r -> sb.append(r.format()));
        sb.append("(all sites of this cluster have been killed)\n");
        killAll.run();
        run.thread.interrupt();
        AssertionError err = new AssertionError(sb.toString(), cause);
        return err;
    }
}
