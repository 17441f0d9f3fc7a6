package org.dthreads.monitor.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.MemoryAddress;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;
import jdk.jfr.Timespan;

/**
 * A {@code wait()} on an emulated monitor: the equivalent of {@code jdk.JavaMonitorWait}. The duration runs from
 * the call to the return (re-acquisition included, as the JVM's). Threshold 20 ms by default, as the JDK's.
 * Built only by {@link MonitorEvents}. The thread class is a number, never text: see {@link MonitorEvents}.
 */
@Name("org.dthreads.MonitorWait")
@Label("Emulated Monitor Wait")
@Description("A thread waited in Object.wait() on a dthreads emulated monitor")
@Category({"Java Application", "dthreads"})
@StackTrace(true)
@Threshold("20 ms")
final class MonitorWaitEvent extends Event {
    @Label("Monitor Class")
    Class<?> monitorClass;

    @Label("Identity Hash")
    @Description("The monitor object's identity hash, as jstack prints it")
    int identityHash;

    @Label("Thread Class")
    @Description("The dthreads thread equivalence class the waiting thread acts for: site id in the high 32 bits,"
            + " thread id in the low 32, shown in hex (org.dthreads.ThreadClass.format prints it as site:thread)")
    @MemoryAddress // not an address: the content type that jfr print and JMC show in hex
    long threadClass;

    @Label("Notifier")
    @Description("The thread that notified this one (for a remote class, the server thread that carried its notify); none on timeout or interrupt")
    Thread notifier;

    @Label("Timeout")
    @Timespan(Timespan.NANOSECONDS)
    long timeout;

    @Label("Timed Out")
    boolean timedOut;

    @Label("Interrupted")
    boolean interrupted;
}
