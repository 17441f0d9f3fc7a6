package org.dthreads.iiop.internal;

import java.lang.instrument.Instrumentation;
import java.util.function.Predicate;

/**
 * What the agent installs for IIOP: the load-time patch of servant skeletons ({@link ServantInvokePatch})
 * that routes remote monitor requests to {@link MonitorRequests}, and the JacORB hooks of the fast path
 * ({@link JacorbPatch}), and in original callback mode the GlassFish ORB's reply wait ({@link GlassFishReplyWaitPatch}). Loaded by the agent's isolated class
 * loader, so it touches no ORB class. Precondition: {@link MonitorRequestHook} is on the bootstrap class
 * path (the agent's boot jar).
 */
public final class IiopAgentSupport {

    private IiopAgentSupport() {}

    /**
     * @param inst the agent's instrumentation
     * @param scope internal class names the agent rewrites
     */
    public static void install(Instrumentation inst, Predicate<String> scope) {
        inst.addTransformer(new ServantInvokePatch(scope), false);
        inst.addTransformer(new JacorbPatch(), false);
        inst.addTransformer(new GlassFishReplyWaitPatch(), false);
    }
}
