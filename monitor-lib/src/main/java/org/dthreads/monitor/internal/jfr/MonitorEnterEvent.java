package org.dthreads.monitor.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.MemoryAddress;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * An entry into an emulated monitor that had to park: the equivalent of {@code jdk.JavaMonitorEnter}, which the
 * JVM cannot emit for a monitor it no longer sees. The duration runs from the first park to the acquisition; the
 * owner is the one found when the thread began to block. A remote object's monitor entered through its stub
 * ({@code synchronized (stub)}) is recorded too, from the ENTER request to the grant, its owner unknown here.
 * Threshold 20 ms by default, as the JDK's default
 * settings have for its own event. Built only by {@link MonitorEvents}.
 *
 * <p>Thread classes are numbers, never text: see {@link MonitorEvents} ("Virtual threads").
 */
@Name("org.dthreads.MonitorEnter")
@Label("Emulated Monitor Blocked")
@Description("A thread waited to enter a dthreads emulated monitor (a synchronized block under dthreads)")
@Category({"Java Application", "dthreads"})
@StackTrace(true)
@Threshold("20 ms")
final class MonitorEnterEvent extends Event {
    @Label("Monitor Class")
    Class<?> monitorClass;

    @Label("Identity Hash")
    @Description("The monitor object's identity hash, as jstack prints it")
    int identityHash;

    @Label("Thread Class")
    @Description("The dthreads thread equivalence class the blocked thread acts for: site id in the high 32 bits,"
            + " thread id in the low 32, shown in hex (org.dthreads.ThreadClass.format prints it as site:thread)")
    @MemoryAddress // not an address: the content type that jfr print and JMC show in hex
    long threadClass;

    @Label("Owner")
    @Description("The thread that owned the monitor when this one began to block; none for a remote lease")
    Thread owner;

    @Label("Owner Class")
    @Description("The thread equivalence class that owned the monitor when this thread began to block, as Thread Class;"
            + " 0 if none")
    @MemoryAddress // not an address: the content type that jfr print and JMC show in hex
    long ownerClass;

    @Label("Owner Site")
    @Description("A remote object's monitor entered through its stub: the object and its site (the owner is known"
            + " there); a local monitor held by a remote class: the peer holding the lease; empty otherwise")
    String ownerSite;
}
