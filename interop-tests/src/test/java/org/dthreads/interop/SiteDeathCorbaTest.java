package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import example.faults.CorbaFaultSite;
import org.dthreads.junit.SiteSpec;

/**
 * Issue #10, a site dies mid-chain, over CORBA (JacORB 3.9, separate JVMs, loopback, the dthreads
 * interceptor and agent). Every hop of the chain after the fault is served on a thread with exactly
 * one adapter binding open (none leaked by the failed requests on the pooled threads).
 */
class SiteDeathCorbaTest extends SiteDeathScenarios {

    @Override
    SiteSpec spec(String name) {
        return SiteSpec.app(name, CorbaFaultSite.class).javaAgent(JrmpZigzagTest.AGENT).args("dthreads");
    }

    @Override
    String failurePattern() {
        return "ERR org\\.omg\\.CORBA\\.(COMM_FAILURE|TRANSIENT).*";
    }

    @Override
    void checkHop(String hop) {
        // a hop served by a JacORB request thread has its own binding only; the step thread that starts
        // the chain serves no request and has none
        assertTrue(hop.endsWith(hop.contains("@RequestProcessor") ? "[b=1]" : "[b=0]"), hop);
    }
}
