package org.dthreads.agent.internal;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.Map;
import java.util.Set;
import org.dthreads.DThreads;
import org.dthreads.monitor.internal.rewriter.MonitorTransformer;
import org.dthreads.iiop.internal.IiopAgentSupport;
import org.dthreads.rmi.internal.RmiAgentSupport;

/**
 * Installs the transformers. Loaded by the agent's own isolated class loader (so the agent's shaded
 * ASM and rewriter never mix with copies on the application class path), and only once the
 * bootstrap path holds the runtime, which this class and the transformers then share with the
 * application.
 */
public final class Installer {

    private Installer() {}

    /** Called reflectively by {@code DThreadsAgent}. */
    public static void install(Instrumentation inst, String agentArgs) {
        String broken = selfTest();
        if (broken != null) {
            System.getLogger("org.dthreads.agent").log(System.Logger.Level.ERROR, "dthreads: this agent jar cannot"
                    + " rewrite classes (" + broken + "); the application runs without dthreads. Rebuild the agent"
                    + " with ./mvnw -B install (a partial build can leave out a dependency).");
            return;
        }
        AgentScope scope = AgentScope.from(agentArgs);
        Module runtimeModule = DThreads.class.getModule(); // the bootstrap loader's unnamed module
        MonitorTransformer monitors = new MonitorTransformer(scope);
        inst.addTransformer(new ModuleReads(inst, runtimeModule, scope), false);
        inst.addTransformer(monitors, false);
        // The IIOP patches before the JRMP retrofit: all three run in this order on the bytes each class leaves the
        // monitor transformer with (the retrofit shares that transformer's scan; RmiAgentSupport)
        IiopAgentSupport.install(inst, scope);
        RmiAgentSupport.install(inst, scope);
        // Through System.getLogger("org.dthreads.agent") unless j.u.l. would write the same bytes with its default
        // configuration: then directly, without starting j.u.l. (StartLine, issue 16)
        boolean direct = StartLine.info(inst, "dthreads " + version() + " agent started: site "
                + Integer.toUnsignedString(DThreads.siteId()) + ", rewriting " + scope);
        // -Ddthreads.debug=true prints the summary at exit. Straight to stderr: System.Logger's default
        // (java.util.logging) hides DEBUG and resets its handlers in its own shutdown hook.
        Runtime.getRuntime().addShutdownHook(new Thread(new Summary(monitors, Boolean.getBoolean("dthreads.debug"),
                inst, direct), "dthreads-summary"));
    }

    /** The summary at exit; a class of its own, not a lambda spun at start-up (issue 16). */
    private static final class Summary implements Runnable {
        private final MonitorTransformer monitors;
        private final boolean debug;
        private final Instrumentation inst;
        private final boolean defaultJul;

        Summary(MonitorTransformer monitors, boolean debug, Instrumentation inst, boolean defaultJul) {
            this.monitors = monitors;
            this.debug = debug;
            this.inst = inst;
            this.defaultJul = defaultJul;
        }

        @Override
        public void run() {
            if (debug) {
                System.err.println("dthreads [INFO] summary: " + monitors.summary());
            } else if (!defaultJul || StartLine.julStarted(inst)) {
                // j.u.l.'s default configuration drops DEBUG; only a configured one (or a LoggerFinder) can show it:
                // not worth starting j.u.l. at exit to drop the line
                System.getLogger("org.dthreads.agent").log(System.Logger.Level.DEBUG, "dthreads: " + monitors.summary());
            }
        }
    }

    /**
     * Rewrites a small class of the agent's own before installing anything, so that an agent jar that
     * cannot rewrite (a dependency left out by a partial build) says so instead of silently leaving
     * every class native. Returns the problem, or null.
     */
    static String selfTest() {
        try (java.io.InputStream in = Installer.class.getResourceAsStream("SelfTestTarget.class")) {
            if (in == null) {
                return "SelfTestTarget.class missing";
            }
            org.dthreads.monitor.internal.rewriter.MonitorRewriter.Result r =
                    org.dthreads.monitor.internal.rewriter.MonitorRewriter.rewrite(in.readAllBytes(), Installer.class.getClassLoader());
            return r.rewritten() && r.synchronizedMethods() == 1 ? null : "self-test not rewritten: " + r.skipReason();
        } catch (Throwable t) {
            return t.toString();
        }
    }

    private static String version() {
        String v = Installer.class.getPackage().getImplementationVersion();
        return v != null ? v : "(dev)";
    }

    /**
     * Named application modules must read the bootstrap loader's unnamed module, where the runtime
     * that rewritten code calls lives; granted here, so users never need {@code --add-reads}.
     */
    private static final class ModuleReads implements ClassFileTransformer {
        private final Instrumentation inst;
        private final Module runtime;
        private final AgentScope scope;

        ModuleReads(Instrumentation inst, Module runtime, AgentScope scope) {
            this.inst = inst;
            this.runtime = runtime;
            this.scope = scope;
        }

        @Override
        public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
                ProtectionDomain domain, byte[] bytes) {
            try {
                if (module != null && module.isNamed() && className != null && scope.includes(className)
                        && !module.canRead(runtime)) {
                    inst.redefineModule(module, Set.of(runtime), Map.of(), Map.of(), Set.of(), Map.of());
                }
            } catch (RuntimeException e) {
                System.getLogger("org.dthreads.agent").log(System.Logger.Level.WARNING,
                        "dthreads: could not let module " + module.getName() + " read the runtime: " + e);
            }
            return null;
        }
    }
}
