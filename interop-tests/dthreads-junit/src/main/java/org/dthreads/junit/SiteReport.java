package org.dthreads.junit;

import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;

/**
 * A snapshot of one site for diagnostics: state, endpoints, a thread dump (in-site, or taken with
 * {@code jcmd}/{@code jstack} when the site did not answer), the dthreads monitor dump and the tails
 * of its output. Immutable.
 *
 * @param siteName    the site's name
 * @param pid         the site JVM's process id
 * @param alive       whether the site was running when the snapshot was taken
 * @param exitCode    its exit code when it was not
 * @param uptime      time since it was launched
 * @param endpoints   the endpoints it published
 * @param threadDump  its thread dump, or why there is none
 * @param monitorDump its dthreads monitor dump, or why there is none
 * @param stdoutTail  the last lines of its standard output (protocol lines excluded)
 * @param stderrTail  the last lines of its standard error
 */
public record SiteReport(String siteName, long pid, boolean alive, OptionalInt exitCode, Duration uptime,
        Map<String, String> endpoints, String threadDump, String monitorDump, String stdoutTail, String stderrTail) {

    /**
     * Copies {@code endpoints}.
     *
     * @param siteName    the site's name
     * @param pid         the site JVM's process id
     * @param alive       whether the site was running when the snapshot was taken
     * @param exitCode    its exit code when it was not
     * @param uptime      time since it was launched
     * @param endpoints   the endpoints it published; copied into an immutable map
     * @param threadDump  its thread dump, or why there is none
     * @param monitorDump its dthreads monitor dump, or why there is none
     * @param stdoutTail  the last lines of its standard output (protocol lines excluded)
     * @param stderrTail  the last lines of its standard error
     */
    public SiteReport {
        endpoints = Map.copyOf(endpoints);
    }

    /**
     * Number of threads the thread dump shows {@code BLOCKED} on a monitor.
     *
     * @return how many threads of {@link #threadDump()} are in state {@code BLOCKED}
     */
    public int blockedThreadCount() {
        int n = 0;
        for (String line : threadDump.split("\n")) {
            if (line.startsWith("\"") && (line.contains(" BLOCKED") || line.contains("java.lang.Thread.State: BLOCKED"))) {
                n++;
            } else if (line.strip().startsWith("java.lang.Thread.State: BLOCKED")) {
                n++;
            }
        }
        return n;
    }

    /**
     * A multi-line rendering for failure messages.
     *
     * @return a header line with the site's name, pid, state and uptime, then its endpoints, thread dump,
     *         monitor dump and output tails
     */
    public String format() {
        StringBuilder sb = new StringBuilder();
        sb.append("===== site ").append(siteName).append(" (pid ").append(pid).append(", ")
                .append(alive ? "alive" : "exited" + (exitCode.isPresent() ? " with code " + exitCode.getAsInt() : ""))
                .append(", up ").append(uptime.toMillis()).append(" ms) =====\n");
        sb.append("--- endpoints: ").append(endpoints).append('\n');
        sb.append("--- thread dump:\n").append(threadDump.strip()).append('\n');
        sb.append("--- dthreads monitor dump:\n").append(monitorDump.strip()).append('\n');
        sb.append("--- stderr tail:\n").append(stderrTail.isEmpty() ? "(empty)\n" : stderrTail);
        sb.append("--- stdout tail:\n").append(stdoutTail.isEmpty() ? "(empty)\n" : stdoutTail);
        return sb.toString();
    }

    @Override
    public String toString() {
        return format();
    }
}
