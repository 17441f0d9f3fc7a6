package org.dthreads.junit;

import java.time.Duration;
import java.util.List;

/**
 * What {@link SiteCluster#assertDeadlocksWithin} saw when the scenario was stuck: the bound it
 * waited, and a {@link SiteReport} of every site (all alive) taken after the bound. Immutable.
 *
 * @param waited  how long the scenario was given
 * @param reports one report per site, in start order
 */
public record DeadlockEvidence(Duration waited, List<SiteReport> reports) {

    /**
     * Copies {@code reports}.
     *
     * @param waited  how long the scenario was given
     * @param reports one report per site, in start order; copied into an unmodifiable list
     */
    public DeadlockEvidence {
        reports = List.copyOf(reports);
    }

    /**
     * Threads shown {@code BLOCKED} on a monitor, summed over all sites.
     *
     * @return the sum of {@link SiteReport#blockedThreadCount()} over {@link #reports()}
     */
    public int blockedThreadCount() {
        return reports.stream().mapToInt(SiteReport::blockedThreadCount).sum();
    }

    /**
     * The report of the named site.
     *
     * @param siteName the name of a site of the cluster
     * @return the report whose {@link SiteReport#siteName()} is {@code siteName}
     * @throws IllegalArgumentException if there is no report for a site of that name
     */
    public SiteReport report(String siteName) {
        return reports.stream().filter(r -> r.siteName().equals(siteName)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no site " + siteName));
    }

    /**
     * All reports, rendered.
     *
     * @return a header line with the bound waited and the number of {@code BLOCKED} threads, followed by
     *         every site's {@link SiteReport#format()}
     */
    public String format() {
        StringBuilder sb = new StringBuilder("Scenario stuck for ").append(waited.toMillis())
                .append(" ms with every site alive; ").append(blockedThreadCount()).append(" BLOCKED thread(s).\n");
        reports.forEach(r -> sb.append(r.format()));
        return sb.toString();
    }

    @Override
    public String toString() {
        return format();
    }
}
