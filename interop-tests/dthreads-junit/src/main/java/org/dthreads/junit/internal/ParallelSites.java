package org.dthreads.junit.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.dthreads.junit.Site;
import org.dthreads.junit.SiteReport;

/**
 * Work on every site of a cluster at once, because each site's share is slow: a report waits for
 * the site's dumps (seconds each when a site does not answer), a kill for its grace period.
 *
 * <h2>Threading contract</h2>
 * Stateless. Each call starts one daemon thread per site and returns when all have finished.
 */
public final class ParallelSites {

    private ParallelSites() {}

    /**
     * A {@link SiteReport} of every site, in order, each dump bounded by {@code dumpTimeout}; a site whose report
     * failed gets a report that says so.
     */
    public static List<SiteReport> reports(List<Site> sites, java.time.Duration dumpTimeout) {
        List<Site> snapshot = List.copyOf(sites);
        List<CompletableFuture<SiteReport>> fs = new ArrayList<>();
        for (Site s : snapshot) {
            CompletableFuture<SiteReport> f = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    f.complete(s.report(dumpTimeout));
                } catch (Throwable e) {
                    f.completeExceptionally(e);
                }
            }, "dthreads-report-" + s.name());
            t.setDaemon(true);
            t.start();
            fs.add(f);
        }
        List<SiteReport> out = new ArrayList<>();
        for (int i = 0; i < fs.size(); i++) {
            Site s = snapshot.get(i);
            try {
                out.add(fs.get(i).join());
            } catch (RuntimeException e) {
                out.add(new SiteReport(s.name(), s.pid(), s.isAlive(), s.exitCode(), s.uptime(), s.endpoints(),
                        "(report failed: " + e + ")", "", s.stdoutTail(), s.stderrTail()));
            }
        }
        return out;
    }

    /** Runs {@code kill} for every site, each on its own thread ({@code dthreads-kill-<site>}), and waits for all. */
    public static void kill(Iterable<Site> sites, Consumer<Site> kill) {
        List<Thread> killers = new ArrayList<>();
        for (Site s : sites) {
            Thread t = new Thread(() -> kill.accept(s), "dthreads-kill-" + s.name());
            t.setDaemon(true);
            t.start();
            killers.add(t);
        }
        for (Thread t : killers) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
