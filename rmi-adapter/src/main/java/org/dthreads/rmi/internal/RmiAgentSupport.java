package org.dthreads.rmi.internal;

import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.util.Map;
import java.util.Set;
import org.dthreads.internal.RateLimitedLog;

/**
 * Installs the JRMP retrofit into a running JVM. Precondition: {@link RmiClientHook},
 * {@link TwinSupport}, {@link Twins} and dthreads-api are on the bootstrap class path (the agent
 * puts them there), because {@code java.rmi} and every application loader must reach them.
 */
public final class RmiAgentSupport {

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(RmiAgentSupport.class);

    private RmiAgentSupport() {}

    /**
     * Escape hatch: package prefixes whose remote interfaces get no twins although they are in the agent's
     * scope (their JRMP calls then carry no class; IIOP calls carry it through the ORB interceptor anyway).
     * Not needed for RMI-IIOP on the GlassFish ORB: {@link ProxyCodegenPatch} lets its stub generator accept
     * twinned interfaces.
     */
    public static final String NO_TWINS_PROPERTY = "dthreads.rmi.noTwins";

    public static void install(Instrumentation inst, RmiTransformer.ScopeFilter agentScope) {
        // A loop, not a stream: a pipeline's lambdas are classes spun at every start-up (issue 16)
        java.util.List<String> noTwins = new java.util.ArrayList<>();
        for (String p : System.getProperty(NO_TWINS_PROPERTY, "").split(",")) {
            String prefix = p.trim();
            if (!prefix.isEmpty()) {
                noTwins.add(prefix.replace('.', '/'));
            }
        }
        // asked for every class loaded: no stream pipeline per class (it ran interpreted at start-up, about 3% of
        // loading Derby's classes), and none at all without the escape hatch
        String[] excluded = noTwins.toArray(new String[0]);
        RmiTransformer.ScopeFilter scope = excluded.length == 0 ? agentScope
                : name -> agentScope.includes(name) && !startsWithAny(name, excluded);
        Module javaRmi = java.rmi.Remote.class.getModule();
        Module hookModule;
        try {
            hookModule = Class.forName(RmiClientHook.class.getName(), false, null).getModule();
        } catch (ClassNotFoundException e) {
            LOG.error("hook-not-on-boot-path", "dthreads: the JRMP hook is not on the bootstrap class path;"
                    + " JRMP calls carry no thread class");
            return;
        }
        // java.rmi must read the (unnamed) module of the hook it will call.
        inst.redefineModule(javaRmi, Set.of(hookModule), Map.of(), Map.of(), Set.of(), Map.of());
        // Not retransformation-capable: the JVM hands such a transformer the bytes the monitor transformer returned as
        // they are (the same array), so it shares that transformer's ClassScan without comparing a copy of every
        // class (issue 16: the comparison, interpreted, was 7% of a cached start-up's loading thread). What it
        // changes at load is kept on a later retransformation, as the monitor rewriting is. The agent installs it
        // after the monitor transformer and the IIOP patches, so it sees their output, as before.
        RmiTransformer transformer = new RmiTransformer(scope);
        inst.addTransformer(transformer, false);
        JrmpMonitorTransport.register();
        try {
            // At premain it is not loaded yet, and the transformer patches it when it is: loading it (and the
            // JRMP classes it needs) only to retransform it would cost every JVM's start-up, RMI or not. Attached
            // later, it may be loaded already: then a retransformation-capable transformer patches it, and only it.
            for (Class<?> loaded : inst.getAllLoadedClasses()) {
                if (loaded.getName().equals("java.rmi.server.RemoteObjectInvocationHandler")) {
                    transformer.invocationHandlerPatchedElsewhere = true;
                    inst.addTransformer(new InvocationHandlerRetransformer(), true);
                    inst.retransformClasses(loaded);
                }
            }
        } catch (UnmodifiableClassException | RuntimeException | LinkageError e) {
            LOG.error("roih-retransform", "dthreads: could not retransform RemoteObjectInvocationHandler;"
                    + " JRMP proxy calls carry no thread class: " + e);
        }
    }

    /** Patches {@code RemoteObjectInvocationHandler} when it is retransformed (see {@link #install}). */
    private static final class InvocationHandlerRetransformer implements java.lang.instrument.ClassFileTransformer {
        @Override
        public byte[] transform(ClassLoader loader, String className, Class<?> redefined,
                java.security.ProtectionDomain domain, byte[] bytes) {
            if (!InvocationHandlerPatch.TARGET.equals(className)) {
                return null;
            }
            try {
                return RmiTransformer.patchInvocationHandler(bytes);
            } catch (RuntimeException | LinkageError e) {
                LOG.error("roih-retransform", "dthreads: could not patch RemoteObjectInvocationHandler;"
                        + " JRMP proxy calls carry no thread class: " + e);
                return null;
            }
        }
    }

    private static boolean startsWithAny(String name, String[] prefixes) {
        for (String p : prefixes) {
            if (name.startsWith(p)) {
                return true;
            }
        }
        return false;
    }
}
