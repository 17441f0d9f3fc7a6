package org.dthreads.monitor.internal;

import static org.dthreads.monitor.internal.MonitorRuntime.LOG;

import org.dthreads.monitor.spi.RemoteMonitorSite;

/**
 * How long a remote monitor lease may be (issue 15 §2). A site takes the lease length a client asks for
 * from the wire; without a bound, a client asking for {@code Long.MAX_VALUE} that then dies or hangs keeps
 * the monitor for ever. The site clamps every request into {@code [1 ms, max]}, where max is
 * {@code -Ddthreads.monitor.maxLeaseMillis} (default {@value #DEFAULT_MAX_LEASE_MILLIS} ms); a request of
 * zero or less gets the default lease ({@link RemoteMonitorSite#DEFAULT_LEASE_MILLIS}, clamped). The client
 * clamps its own {@code -Ddthreads.monitor.leaseMillis} into {@code [100 ms, max]} too (the same property),
 * so its renewals (at a third of its lease) come in time for a site with the same bound.
 *
 * <p>Immutable after class initialization (the properties are read once); every clamp is logged through the
 * rate-limited log, never thrown.
 */
final class LeaseBounds {
    static final long DEFAULT_MAX_LEASE_MILLIS = 120_000L;
    static final long MIN_CLIENT_LEASE_MILLIS = 100L;
    /** The longest lease this JVM grants (as a site) or asks for (as a client). */
    static final long MAX_LEASE_MILLIS = maxLeaseMillis(System.getProperty("dthreads.monitor.maxLeaseMillis"));

    private LeaseBounds() {}

    /** The bound from the property's value; the default (logged) if it is absent, not a number, or not positive. */
    static long maxLeaseMillis(String property) {
        if (property == null) {
            return DEFAULT_MAX_LEASE_MILLIS;
        }
        try {
            long ms = Long.parseLong(property.trim());
            if (ms > 0) {
                return ms;
            }
        } catch (NumberFormatException e) {
            // logged below
        }
        LOG.warn("max-lease-invalid", "dthreads: -Ddthreads.monitor.maxLeaseMillis=" + property + " is not a positive"
                + " number of milliseconds; using " + DEFAULT_MAX_LEASE_MILLIS);
        return DEFAULT_MAX_LEASE_MILLIS;
    }

    /** The lease a site grants for a request of {@code requested} ms from {@code peer}: clamped, logged if changed. */
    static long atSite(long requested, String peer, long max) {
        if (requested <= 0) {
            long granted = Math.min(RemoteMonitorSite.DEFAULT_LEASE_MILLIS, max);
            LOG.warn("lease-request-invalid", "dthreads: " + peer + " asked for a remote monitor lease of " + requested
                    + " ms; granted " + granted + " ms");
            return granted;
        }
        if (requested > max) {
            LOG.warn("lease-request-clamped", "dthreads: " + peer + " asked for a remote monitor lease of " + requested
                    + " ms; granted the site's maximum, " + max + " ms (-Ddthreads.monitor.maxLeaseMillis)");
            return max;
        }
        return requested;
    }

    /** The lease a client asks for, from its {@code -Ddthreads.monitor.leaseMillis} value (null: the default). */
    static long forClient(String property, long max) {
        long ms = RemoteMonitorSite.DEFAULT_LEASE_MILLIS;
        if (property != null) {
            try {
                ms = Long.parseLong(property.trim());
            } catch (NumberFormatException e) {
                LOG.warn("lease-invalid", "dthreads: -Ddthreads.monitor.leaseMillis=" + property + " is not a number;"
                        + " using " + RemoteMonitorSite.DEFAULT_LEASE_MILLIS + " ms");
            }
        }
        long clamped = Math.min(Math.max(MIN_CLIENT_LEASE_MILLIS, ms), Math.max(MIN_CLIENT_LEASE_MILLIS, max));
        if (clamped != ms) {
            LOG.warn("lease-clamped", "dthreads: -Ddthreads.monitor.leaseMillis=" + property + " is outside ["
                    + MIN_CLIENT_LEASE_MILLIS + ", " + max + "] ms; using " + clamped + " ms");
        }
        return clamped;
    }
}
