package org.dthreads.monitor;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import org.dthreads.internal.BootDelegation;
import org.dthreads.internal.RateLimitedLog;
import org.dthreads.monitor.internal.diagnostics.MonitorsMBeanRegistration;
import org.dthreads.monitor.internal.diagnostics.SiteGraph;

/**
 * Deadlocks on emulated monitors, found as the JVM finds them on its own: under dthreads a {@code synchronized}
 * block no longer uses the JVM's monitor, so {@code ThreadMXBean.findDeadlockedThreads()} and {@code jstack}
 * cannot see a deadlock on it. These methods look at this site's wait-for graph over thread classes, which
 * holds the emulated, the JVM's and {@code java.util.concurrent} locks together. A deadlock that spans JVMs
 * needs every site's edges: {@code ./dthreads deadlocks PID|HOST:PORT...} combines them (see the user guide,
 * "When it hangs").
 *
 * <p>A check takes two snapshots a moment apart and reports only what both show, so it takes about 100 ms
 * when it finds a cycle.
 */
public final class Deadlocks {
    private static final RateLimitedLog LOG = RateLimitedLog.forClass(Deadlocks.class);
    private static final MethodHandle FIND = BootDelegation.staticMethod(SiteGraph.class, "findDeadlockedThreads",
            MethodType.methodType(long[].class));
    private static final MethodHandle REPORT = BootDelegation.staticMethod(SiteGraph.class, "deadlockReport",
            MethodType.methodType(String.class));
    private static final MethodHandle DUMP = BootDelegation.staticMethod(SiteGraph.class, "threadDump",
            MethodType.methodType(String.class));
    private static final MethodHandle REGISTER = BootDelegation.staticMethod(MonitorsMBeanRegistration.class,
            "register", MethodType.methodType(boolean.class));

    private Deadlocks() {}

    /**
     * The threads of this JVM in a deadlock, like {@code ThreadMXBean.findDeadlockedThreads()}, counting emulated
     * monitors too.
     *
     * @return the ids of the deadlocked threads, or {@code null} if there is none (or the check failed: logged)
     */
    public static long[] findDeadlockedThreads() {
        try {
            return (long[]) FIND.invokeExact();
        } catch (Throwable t) {
            LOG.error("find-failed", "dthreads: the deadlock check failed: " + t);
            return null;
        }
    }

    /**
     * This JVM's deadlocks as text, every cycle edge by edge: thread, class, monitor, owner, top frames.
     *
     * @return the report; a line saying there is none when there is none
     */
    public static String report() {
        try {
            return (String) REPORT.invokeExact();
        } catch (Throwable t) {
            LOG.error("report-failed", "dthreads: the deadlock report failed: " + t);
            return "dthreads: the deadlock report failed: " + t + "\n";
        }
    }

    /**
     * A {@code jstack}-like dump of every thread, where emulated monitors show as {@code - locked <0x...> (a T)}
     * and {@code - waiting to lock <0x...> (a T)} with their owning class, followed by this JVM's deadlocks.
     *
     * @return the dump
     */
    public static String threadDump() {
        try {
            return (String) DUMP.invokeExact();
        } catch (Throwable t) {
            LOG.error("dump-failed", "dthreads: the thread dump failed: " + t);
            return "dthreads: the thread dump failed: " + t + "\n";
        }
    }

    /**
     * Registers the platform MBean {@code org.dthreads:type=Monitors} (counts, {@code dump}, {@code deadlocks},
     * {@code edges}) now, for an application that serves JMX itself. Otherwise it is registered on demand (see the
     * user guide). Idempotent.
     *
     * @return true if the MBean is registered
     */
    public static boolean registerMBean() {
        try {
            return (boolean) REGISTER.invokeExact();
        } catch (Throwable t) {
            LOG.error("register-failed", "dthreads: registering the MBean failed: " + t);
            return false;
        }
    }
}
