package org.dthreads.monitor.internal;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The monitor runtime's state that the wait-for graph needs ({@code internal.diagnostics}), in JDK types only,
 * so the graph code needs no access to the runtime's package-private classes.
 *
 * <p>Read-only and weakly consistent: each monitor is read under its own queue lock, one after the other, so a
 * row set may mix moments; the graph confirms a cycle on a second snapshot before reporting it (see
 * {@code internal.diagnostics.SiteGraph}). Never called on a monitor operation's path.
 */
public final class DiagnosticRows {

    private DiagnosticRows() {}

    /**
     * One row per busy local emulated monitor: {identityHash (Integer), typeName (String), ownerClass (Long, 0 =
     * free), ownerThread (Thread, null for a remote lease or free), ownerActor (String), leasePeer (String, null
     * unless a remote lease owns it), depth (Integer), entrantThreads (Thread[]), entrantClasses (long[]),
     * entrantOrphans (boolean[]), waiterThreads (Thread[]), waiterClasses (long[])}.
     *
     * @return the rows, in table order
     */
    public static List<Object[]> emulatedRows() {
        List<Object[]> rows = new ArrayList<>();
        MonitorRuntime.TABLE.forEach(m -> {
            if (m.remote == null && m.isBusy()) {
                Object[] row = m.waitForRow();
                if (row != null) {
                    rows.add(row);
                }
            }
        });
        return rows;
    }

    /**
     * One row per stub whose remote monitor a class of this site holds, enters or waits on: {identityHash
     * (Integer), description (String: the object and its site, as the transport describes it), holderClass
     * (Long, 0 if none), enteringClasses (long[]), waitingClasses (long[])}.
     *
     * @return the rows, in table order
     */
    public static List<Object[]> remoteRows() {
        List<Object[]> rows = new ArrayList<>();
        MonitorRuntime.TABLE.forEach(m -> {
            if (m.remote != null && m.isBusy()) {
                Object[] s = m.snapshot();
                rows.add(new Object[] {s[0], s[7], s[2], s[6], s[5]});
            }
        });
        return rows;
    }

    /**
     * The threads now blocked in outgoing remote calls, each with the class it acts for and the identity hash of
     * the call's target (0 if the adapter did not say).
     *
     * @return thread to {classAsLong, targetIdentityHash}
     */
    public static Map<Thread, long[]> suspendedThreads() {
        Map<Thread, long[]> out = new IdentityHashMap<>();
        for (Actor a : MonitorRuntime.suspendedActors()) {
            Object target = a.outgoingTarget;
            if (a.thread != null && a.outgoingCalls > 0) {
                out.put(a.thread, new long[] {a.outgoingClass, target == null ? 0 : System.identityHashCode(target)});
            }
        }
        return out;
    }
}
