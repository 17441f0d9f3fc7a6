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

    /** Copies {@code reports}. */
    public DeadlockEvidence {
        reports = List.copyOf(reports);
    }

    /** Threads shown {@code BLOCKED} on a monitor, summed over all sites. */
    public int blockedThreadCount() {
        return reports.stream().mapToInt(SiteReport::blockedThreadCount).sum();
    }

    /** The report of the named site. */
    public SiteReport report(String siteName) {
        return reports.stream().filter(r -> r.siteName().equals(siteName)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no site " + siteName));
    }

    /** All reports, rendered. */
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
