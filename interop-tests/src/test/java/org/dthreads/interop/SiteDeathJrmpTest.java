package org.dthreads.interop;

import example.faults.JrmpFaultSite;
import org.dthreads.junit.SiteSpec;

/** Issue #10, a site dies mid-chain, over JRMP (separate JVMs, loopback, the dthreads agent). */
class SiteDeathJrmpTest extends SiteDeathScenarios {

    @Override
    SiteSpec spec(String name) {
        return SiteSpec.app(name, JrmpFaultSite.class).javaAgent(JrmpZigzagTest.AGENT);
    }

    @Override
    String failurePattern() {
        return "ERR java\\.rmi\\.[A-Za-z]*Exception: .*";
    }
}
