package org.dthreads.rmi.testing;

import java.lang.instrument.Instrumentation;
import org.dthreads.rmi.internal.RmiAgentSupport;

/** A minimal agent for the forked tests: the JRMP retrofit for the fixture package only. */
public final class TestAgent {
    private TestAgent() {}

    public static void premain(String args, Instrumentation inst) {
        RmiAgentSupport.install(inst, name -> name.startsWith("org/dthreads/rmi/fixture/"));
    }
}
