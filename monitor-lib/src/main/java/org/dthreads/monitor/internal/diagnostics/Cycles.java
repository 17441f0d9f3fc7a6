package org.dthreads.monitor.internal.diagnostics;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.dthreads.ThreadClass;

/**
 * Cycles in a wait-for graph over thread classes, from one site's edges or the union of several sites'.
 *
 * <p>Edges whose owner is unknown (a stub's monitor seen from the client: its site has the real edge) and edges
 * from a class to itself (a take-over pending, an orphan: a class is one logical thread and never waits for
 * itself in a deadlock) are left out. Every elementary cycle is reported once, starting at its smallest node
 * (the classic enumeration: from each start node, a depth-first search through larger nodes only), at most
 * {@link #MAX_CYCLES}. Stateless.
 */
public final class Cycles {
    static final int MAX_CYCLES = 64;

    private Cycles() {}

    /**
     * The elementary cycles of the graph.
     *
     * @param edges the edges, of one site or many
     * @return each cycle as its edges in order (each edge's owner is the next edge's waiter)
     */
    public static List<List<WaitEdge>> find(List<WaitEdge> edges) {
        Map<String, Map<String, WaitEdge>> out = new LinkedHashMap<>();
        for (WaitEdge e : edges) {
            String from = e.waiterNode();
            String to = e.ownerNode();
            if (to == null || e.orphan() || from.equals(to)) {
                continue;
            }
            out.computeIfAbsent(from, k -> new LinkedHashMap<>()).putIfAbsent(to, e);
        }
        List<List<WaitEdge>> cycles = new ArrayList<>();
        for (String start : new TreeSet<>(out.keySet())) {
            search(start, start, out, new ArrayList<>(), new HashSet<>(), cycles);
            if (cycles.size() >= MAX_CYCLES) {
                break;
            }
        }
        return cycles;
    }

    private static void search(String start, String node, Map<String, Map<String, WaitEdge>> out, List<WaitEdge> path,
            Set<String> onPath, List<List<WaitEdge>> cycles) {
        Map<String, WaitEdge> next = out.get(node);
        if (next == null || cycles.size() >= MAX_CYCLES) {
            return;
        }
        onPath.add(node);
        for (Map.Entry<String, WaitEdge> e : next.entrySet()) {
            String to = e.getKey();
            path.add(e.getValue());
            if (to.equals(start)) {
                cycles.add(List.copyOf(path));
            } else if (to.compareTo(start) > 0 && !onPath.contains(to)) {
                search(start, to, out, path, onPath, cycles);
            }
            path.remove(path.size() - 1);
        }
        onPath.remove(node);
    }

    /**
     * The cycles of {@code later} that were already present in {@code earlier} (same threads blocked on the same
     * monitors owned by the same classes): a snapshot reads monitors one after the other, so a cycle seen once
     * may mix moments; a deadlock stays.
     *
     * @param earlier the edges of a first snapshot
     * @param later   the edges of a second one
     * @return the confirmed cycles of {@code later}
     */
    public static List<List<WaitEdge>> confirmed(List<WaitEdge> earlier, List<WaitEdge> later) {
        Set<String> before = new HashSet<>();
        for (WaitEdge e : earlier) {
            before.add(e.identity());
        }
        List<List<WaitEdge>> out = new ArrayList<>();
        for (List<WaitEdge> cycle : find(later)) {
            if (cycle.stream().allMatch(e -> before.contains(e.identity()))) {
                out.add(cycle);
            }
        }
        return out;
    }

    /**
     * A cycle as text, edge by edge: where each thread is blocked, on what, owned by whom, and its top frames.
     *
     * @param cycle a cycle from {@link #find}
     * @param sites site id to a short description ("pid 1234" or "host:port"), for edges whose site it names
     * @return the text, ending with a newline
     */
    public static String format(List<WaitEdge> cycle, Map<Integer, String> sites) {
        Set<Integer> siteIds = new TreeSet<>();
        cycle.forEach(e -> siteIds.add(e.siteId()));
        StringBuilder sb = new StringBuilder();
        sb.append("Found one dthreads deadlock: a cycle of ").append(cycle.size()).append(" thread classes across ")
                .append(siteIds.size()).append(siteIds.size() == 1 ? " site" : " sites").append(":\n");
        for (WaitEdge e : cycle) {
            String where = sites.getOrDefault(e.siteId(), "pid " + e.pid() + " on " + e.host());
            sb.append("  at site ").append(String.format("%08x", e.siteId())).append(" (").append(where)
                    .append("): thread \"").append(e.threadName()).append("\" #").append(e.threadId())
                    .append(" of class ").append(ThreadClass.format(e.waiterClass())).append(", ").append(e.state())
                    .append('\n');
            sb.append("    waiting to lock ").append(e.monitor()).append(" [").append(e.kind()).append(" monitor]")
                    .append('\n');
            sb.append("    which is held by class ").append(e.ownerNode());
            if (!e.ownerThread().isEmpty()) {
                sb.append(" (").append(e.ownerThread()).append(')');
            }
            if (!e.ownerSite().isEmpty()) {
                sb.append(" from ").append(e.ownerSite());
            }
            sb.append('\n');
            for (String frame : e.frames()) {
                sb.append("        at ").append(frame).append('\n');
            }
        }
        return sb.toString();
    }
}
