package org.dthreads.monitor.internal.diagnostics;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.dthreads.internal.RateLimitedLog;

/**
 * Registers {@code org.dthreads:type=Monitors} in the platform MBean server, on demand only: the platform server
 * costs tens of milliseconds to create, so the agent never creates it at start-up. It is registered when the JVM
 * starts a JMX connector anyway ({@code -Dcom.sun.management.jmxremote*}: the agent registers it on a daemon
 * thread), when {@code ./dthreads dump|deadlocks} attaches, or when the application calls
 * {@link org.dthreads.monitor.Deadlocks#registerMBean()}. Idempotent and thread-safe (the server's own check).
 */
public final class MonitorsMBeanRegistration {
    /** The MBean's name. */
    public static final String NAME = "org.dthreads:type=Monitors";
    private static final RateLimitedLog LOG = RateLimitedLog.forClass(MonitorsMBeanRegistration.class);

    private MonitorsMBeanRegistration() {}

    /**
     * Registers the MBean if it is not there yet; never throws (a failure is logged).
     *
     * @return true if the MBean is registered now
     */
    public static boolean register() {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName(NAME);
            if (!server.isRegistered(name)) {
                server.registerMBean(new MonitorsBean(), name);
            }
            return true;
        } catch (javax.management.InstanceAlreadyExistsException raced) {
            return true;
        } catch (JMException | RuntimeException | LinkageError e) {
            LOG.error("mbean-register-failed", "dthreads: could not register the MBean " + NAME + ": " + e);
            return false;
        }
    }

    /** The MBean: each read takes a fresh snapshot. */
    static final class MonitorsBean implements MonitorsMXBean {
        @Override
        public String getSiteId() {
            return String.format("%08x", org.dthreads.internal.KernelLink.siteId());
        }

        @Override
        public long getPid() {
            return ProcessHandle.current().pid();
        }

        @Override
        public int getBusyMonitors() {
            return SiteGraph.counts()[0];
        }

        @Override
        public int getBlockedThreads() {
            return SiteGraph.counts()[1];
        }

        @Override
        public int getWaitingThreads() {
            return SiteGraph.counts()[2];
        }

        @Override
        public int getDeadlockCount() {
            return SiteGraph.localCycles().size();
        }

        @Override
        public String dump() {
            return SiteGraph.threadDump();
        }

        @Override
        public String deadlocks() {
            return SiteGraph.deadlockReport();
        }

        @Override
        public String[] edges() {
            return SiteGraph.edgeLines();
        }
    }
}
