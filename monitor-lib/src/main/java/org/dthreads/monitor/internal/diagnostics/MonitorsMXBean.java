package org.dthreads.monitor.internal.diagnostics;

/**
 * The platform MBean {@code org.dthreads:type=Monitors}: this site's emulated monitors and wait-for graph for
 * {@code jconsole}, remote JMX clients and {@code ./dthreads dump|deadlocks}. JDK types only.
 */
public interface MonitorsMXBean {
    /** @return this site's id, 8 hex digits (the high half of the classes its threads start) */
    String getSiteId();

    /** @return the process id */
    long getPid();

    /** @return busy emulated monitors (owned, waited on, entered), local and remote */
    int getBusyMonitors();

    /** @return threads blocked entering an emulated monitor (the JVM reports them WAITING) */
    int getBlockedThreads();

    /** @return threads in {@code wait()} on an emulated monitor */
    int getWaitingThreads();

    /** @return deadlocks among this site's own edges (a check: takes two snapshots) */
    int getDeadlockCount();

    /** @return a {@code jstack}-like dump with the emulated monitors, then this site's deadlocks */
    String dump();

    /** @return this site's deadlocks, every cycle edge by edge, or a line saying there is none */
    String deadlocks();

    /** @return this site's wait-for edges, one line each, for combining sites' graphs */
    String[] edges();
}
