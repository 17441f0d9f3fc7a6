package org.dthreads.monitor.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A deadlock found by the automatic check ({@code -Ddthreads.deadlock.detect}). Built only by {@link MonitorEvents}.
 * The cycle stays text, which JFR stores in its string pool: only the watch's platform thread commits this event, so
 * no virtual thread is pinned for it (see {@link MonitorEvents}).
 */
@Name("org.dthreads.Deadlock")
@Label("dthreads Deadlock")
@Description("A cycle in the wait-for graph over thread classes, found by the automatic deadlock check")
@Category({"Java Application", "dthreads"})
@StackTrace(false)
final class DeadlockEvent extends Event {
    @Label("Thread Classes")
    @Description("How many thread classes the cycle has")
    int classes;

    @Label("Sites")
    @Description("How many sites (JVMs) the cycle spans")
    int sites;

    @Label("Cycle")
    @Description("The cycle edge by edge, as the deadlock report prints it")
    String cycle;
}
