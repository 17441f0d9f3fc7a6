package org.dthreads.monitor.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.junit.jupiter.api.Test;

/** Issue 15 §2: the lease bound at the site and the client, and the per-class policy for remote monitor operations. */
class LeaseBoundsAndPolicyTest {

    @Test
    void theSiteClampsEveryRequestedLeaseIntoItsBound() {
        assertEquals(2_000, LeaseBounds.atSite(Long.MAX_VALUE, "peer", 2_000));
        assertEquals(2_000, LeaseBounds.atSite(2_001, "peer", 2_000));
        assertEquals(1_500, LeaseBounds.atSite(1_500, "peer", 2_000));
        assertEquals(1, LeaseBounds.atSite(1, "peer", 2_000));
        assertEquals(2_000, LeaseBounds.atSite(0, "peer", 2_000), "zero: the default lease, within the bound");
        assertEquals(RemoteMonitorSite.DEFAULT_LEASE_MILLIS, LeaseBounds.atSite(-5, "peer", 120_000));
        assertEquals(RemoteMonitorSite.DEFAULT_LEASE_MILLIS, LeaseBounds.atSite(Long.MIN_VALUE, "peer", 120_000));
    }

    @Test
    void theBoundItselfFallsBackToTwoMinutesWhenMissingOrInvalid() {
        assertEquals(120_000, LeaseBounds.maxLeaseMillis(null));
        assertEquals(120_000, LeaseBounds.maxLeaseMillis("0"));
        assertEquals(120_000, LeaseBounds.maxLeaseMillis("-1"));
        assertEquals(120_000, LeaseBounds.maxLeaseMillis("two minutes"));
        assertEquals(2_500, LeaseBounds.maxLeaseMillis(" 2500 "));
        assertEquals(Long.MAX_VALUE, LeaseBounds.maxLeaseMillis(Long.toString(Long.MAX_VALUE)), "an explicit choice");
    }

    @Test
    void theClientClampsItsOwnLease() {
        assertEquals(120_000, LeaseBounds.forClient(Long.toString(Long.MAX_VALUE), 120_000));
        assertEquals(100, LeaseBounds.forClient("0", 120_000));
        assertEquals(100, LeaseBounds.forClient("-7", 120_000));
        assertEquals(1_500, LeaseBounds.forClient("1500", 120_000));
        assertEquals(RemoteMonitorSite.DEFAULT_LEASE_MILLIS, LeaseBounds.forClient(null, 120_000));
        assertEquals(RemoteMonitorSite.DEFAULT_LEASE_MILLIS, LeaseBounds.forClient("soon", 120_000));
    }

    @Test
    void thePolicyAllowsByDefaultAndTheFirstMatchingRuleDecides() {
        assertTrue(RemotePolicy.parse(null).allows("com.example.Counter"));
        assertTrue(RemotePolicy.parse("").allows("com.example.Counter"));
        RemotePolicy onlyCounter = RemotePolicy.parse("+com.example.Counter, -*");
        assertTrue(onlyCounter.allows("com.example.Counter"));
        assertFalse(onlyCounter.allows("com.example.CounterImpl"));
        assertFalse(onlyCounter.allows("java.lang.Object"));
        RemotePolicy noInternals = RemotePolicy.parse("-com.example.internal.*");
        assertFalse(noInternals.allows("com.example.internal.Secret"));
        assertFalse(noInternals.allows("com.example.internal.deep.Secret"));
        assertTrue(noInternals.allows("com.example.internals.NotThePackage"));
        assertTrue(noInternals.allows("com.example.Public"));
        RemotePolicy malformed = RemotePolicy.parse("-com.*.Secret,-,+,-com.example.Secret");
        assertFalse(malformed.allows("com.example.Secret"), "malformed rules are skipped, the rest applies");
        assertTrue(malformed.allows("com.other.Secret"));
    }
}
