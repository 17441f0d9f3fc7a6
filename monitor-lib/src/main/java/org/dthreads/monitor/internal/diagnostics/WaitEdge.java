package org.dthreads.monitor.internal.diagnostics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.dthreads.ThreadClass;

/**
 * One edge of the wait-for graph: a blocked thread of a site, the class it acts for, the monitor it waits for and
 * the class (and thread) that owns it. The graph is a graph over thread classes: the class travels with a call
 * chain, so "class C waits for class D" means the same at every site, and the union of all sites' edges holds
 * every cycle, also one that spans JVMs. Immutable.
 *
 * <p>Travels between JVMs as one line of text ({@link #toLine()} / {@link #parse}): tab-separated fields with
 * {@code \\}, tab and newline escaped, so the MBean's {@code edges} operation needs no shared type.
 *
 * @param siteId      the reporting site (where the thread is blocked)
 * @param pid         that JVM's process id
 * @param host        that JVM's host name
 * @param waiterClass the blocked thread's class, {@link ThreadClass#NONE} if unknown (a thread dthreads never saw)
 * @param threadId    the blocked thread's id
 * @param threadName  the blocked thread's name
 * @param state       the state the JVM would report ({@code BLOCKED} for a monitor entrant)
 * @param kind        {@code emulated}, {@code native} (a JVM monitor), {@code lock} (a java.util.concurrent
 *                    lock) or {@code remote} (the monitor of a remote object, entered through its stub)
 * @param objectType  the monitor's object type
 * @param objectHash  its identity hash at the site that holds the object
 * @param ownerClass  the owning class, {@link ThreadClass#NONE} if unknown here (a remote monitor: see its site)
 * @param ownerThreadId the owning thread's id at this site, -1 if none (a remote lease, or unknown)
 * @param ownerThread the owning thread's name, or the lease holding it
 * @param ownerSite   where the owner is: a lease's peer, a remote object's site; empty if here
 * @param orphan      the thread waits for its own class (a take-over pending or an orphan): never a cycle
 * @param frames      the blocked thread's top frames, runtime frames left out
 */
public record WaitEdge(int siteId, long pid, String host, long waiterClass, long threadId, String threadName,
        String state, String kind, String objectType, int objectHash, long ownerClass, long ownerThreadId,
        String ownerThread, String ownerSite, boolean orphan, List<String> frames) {

    /** The graph node of the waiter: its class, or the thread itself when dthreads does not know its class. */
    String waiterNode() {
        return waiterClass != ThreadClass.NONE ? ThreadClass.format(waiterClass)
                : "thread#" + threadId + "@" + Integer.toHexString(siteId);
    }

    /** The graph node of the owner; null when unknown here (the edge then cannot close a cycle by itself). */
    String ownerNode() {
        if (ownerClass != ThreadClass.NONE) {
            return ThreadClass.format(ownerClass);
        }
        return ownerThreadId >= 0 ? "thread#" + ownerThreadId + "@" + Integer.toHexString(siteId) : null;
    }

    /** What identifies the same wait in two snapshots. */
    String identity() {
        return siteId + "/" + threadId + "/" + objectHash + "/" + ownerClass + "/" + ownerThreadId;
    }

    /** {@code <0x1a2b3c4d> (a com.acme.Node)}, as jstack writes a monitor. */
    String monitor() {
        return String.format("<0x%08x> (a %s)", objectHash, objectType);
    }

    /** The edge as one line of text; see {@link #parse}. */
    public String toLine() {
        List<String> f = new ArrayList<>(List.of(Integer.toString(siteId), Long.toString(pid), host,
                Long.toString(waiterClass), Long.toString(threadId), threadName, state, kind, objectType,
                Integer.toString(objectHash), Long.toString(ownerClass), Long.toString(ownerThreadId), ownerThread,
                ownerSite, Boolean.toString(orphan)));
        f.addAll(frames);
        StringBuilder sb = new StringBuilder();
        for (String s : f) {
            if (sb.length() > 0) {
                sb.append('\t');
            }
            escape(s == null ? "" : s, sb);
        }
        return sb.toString();
    }

    private static final int FIXED_FIELDS = 15;

    /**
     * An edge from {@link #toLine()}.
     *
     * @param line the line
     * @return the edge
     * @throws IllegalArgumentException if the line is not an edge
     */
    public static WaitEdge parse(String line) {
        String[] raw = line.split("\t", -1);
        if (raw.length < FIXED_FIELDS) {
            throw new IllegalArgumentException("not a wait-for edge (" + raw.length + " fields): " + line);
        }
        String[] f = Arrays.stream(raw).map(WaitEdge::unescape).toArray(String[]::new);
        try {
            return new WaitEdge(Integer.parseInt(f[0]), Long.parseLong(f[1]), f[2], Long.parseLong(f[3]),
                    Long.parseLong(f[4]), f[5], f[6], f[7], f[8], Integer.parseInt(f[9]), Long.parseLong(f[10]),
                    Long.parseLong(f[11]), f[12], f[13], Boolean.parseBoolean(f[14]),
                    List.of(Arrays.copyOfRange(f, FIXED_FIELDS, f.length)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a wait-for edge: " + line, e);
        }
    }

    private static void escape(String s, StringBuilder out) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                default -> out.append(c);
            }
        }
    }

    private static String unescape(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char n = s.charAt(++i);
                out.append(n == 't' ? '\t' : n == 'n' ? '\n' : n == 'r' ? '\r' : n);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
