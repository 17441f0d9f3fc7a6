package org.dthreads.monitor.internal.diagnostics;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * This site's wait-for graph, for the public {@link org.dthreads.monitor.Deadlocks}, the MBean and the
 * {@code ./dthreads} commands. Every public method takes and returns JDK types only: a second copy of
 * monitor-lib reaches the bootstrap copy's through {@link org.dthreads.internal.BootDelegation}.
 *
 * <p>A cycle is reported only when a second snapshot, {@link #CONFIRM_MILLIS} later, still has every edge of it
 * (same threads, same monitors, same owning classes): a snapshot reads the emulated monitors one after the
 * other, so one snapshot may mix moments, while a deadlock stays. Stateless; each call takes fresh snapshots.
 */
public final class SiteGraph {
    /** The pause between the two snapshots of a deadlock check. */
    public static final long CONFIRM_MILLIS = 100;

    private SiteGraph() {}

    /**
     * This site's edges now, as {@link WaitEdge#toLine()} lines.
     *
     * @return one line per edge
     */
    public static String[] edgeLines() {
        return SiteSnapshot.take().edges.stream().map(WaitEdge::toLine).toArray(String[]::new);
    }

    /**
     * The confirmed cycles among this site's own edges.
     *
     * @return the cycles, each as its edges in order
     */
    static List<List<WaitEdge>> localCycles() {
        List<WaitEdge> first = SiteSnapshot.take().edges;
        if (Cycles.find(first).isEmpty()) {
            return List.of();
        }
        pause();
        return Cycles.confirmed(first, SiteSnapshot.take().edges);
    }

    /**
     * The ids of the threads in confirmed cycles among this site's edges (emulated, native and lock monitors), as
     * {@code ThreadMXBean.findDeadlockedThreads()} gives them for the JVM's own monitors.
     *
     * @return the thread ids, or null if there is no deadlock (as the JVM's method)
     */
    public static long[] findDeadlockedThreads() {
        Set<Long> ids = new LinkedHashSet<>();
        for (List<WaitEdge> c : localCycles()) {
            c.forEach(e -> ids.add(e.threadId()));
        }
        return ids.isEmpty() ? null : ids.stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * This site's confirmed deadlocks as text, every cycle edge by edge; a line saying there is none otherwise.
     *
     * @return the text, ending with a newline
     */
    public static String deadlockReport() {
        List<List<WaitEdge>> cycles = localCycles();
        if (cycles.isEmpty()) {
            return "No dthreads deadlock found at this site.\n";
        }
        StringBuilder sb = new StringBuilder();
        cycles.forEach(c -> sb.append(Cycles.format(c, Map.of())));
        return sb.toString();
    }

    /**
     * A {@code jstack}-like dump of every thread with the emulated monitors, then this site's deadlocks.
     *
     * @return the text
     */
    public static String threadDump() {
        SiteSnapshot first = SiteSnapshot.take();
        List<List<WaitEdge>> cycles = Cycles.find(first.edges);
        if (cycles.isEmpty()) {
            return ThreadDumpText.of(first, cycles);
        }
        pause();
        SiteSnapshot second = SiteSnapshot.take();
        return ThreadDumpText.of(second, Cycles.confirmed(first.edges, second.edges));
    }

    /**
     * Counts for the MBean's attributes: {busy emulated monitors, threads blocked entering emulated monitors,
     * threads in an emulated {@code wait()}, edges of this site}. One snapshot, no deadlock check.
     *
     * @return the four counts
     */
    public static int[] counts() {
        SiteSnapshot s = SiteSnapshot.take();
        int entering = 0;
        int waiting = 0;
        for (Object[] r : s.emulated) {
            entering += ((Thread[]) r[7]).length;
            waiting += ((Thread[]) r[10]).length;
        }
        return new int[] {s.emulated.size() + s.remote.size(), entering, waiting, s.edges.size()};
    }

    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(CONFIRM_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
