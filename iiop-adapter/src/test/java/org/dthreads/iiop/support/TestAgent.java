package org.dthreads.iiop.support;

import java.lang.instrument.Instrumentation;
import org.dthreads.iiop.internal.JacorbPatch;

/**
 * Test JVMs' agent ({@code -javaagent:target/iiop-adapter-*-testagent.jar}, see the pom): installs only
 * the JacORB hooks of the fast path, as the real agent does, so that the module's tests run JacORB on the
 * fast path (and, with {@code -Ddthreads.iiop.path=portable}, on the portable path with the hooks inert).
 */
public final class TestAgent {
    private TestAgent() {}

    public static void premain(String args, Instrumentation inst) {
        inst.addTransformer(new JacorbPatch(), false);
    }
}
