package org.dthreads.agent;

import java.lang.instrument.Instrumentation;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.jar.JarFile;
import org.dthreads.agent.internal.BootJar;

/**
 * The dthreads java agent: {@code java -javaagent:dthreads-agent.jar ...} is the whole set-up.
 *
 * <p>Start-up, as the OpenTelemetry agent does it: the runtime classes (dthreads-api, the monitor
 * runtime, the JRMP hooks) go on the bootstrap class path, so every class loader reaches one
 * runtime; the rest of the agent (rewriters, shaded ASM) is loaded by an isolated class loader over
 * the agent jar, so copies of dthreads or ASM on the application class path never mix with it. The
 * agent then installs the load-time rewriting of monitor operations and the JRMP retrofit for the
 * classes in scope. Classes loaded before the agent keep the JVM's monitors. A failure is logged
 * and the application starts without dthreads; it is never stopped.
 *
 * <p>This class is loaded by the system class loader, possibly from a copy of dthreads-agent on the
 * class path; it uses JDK classes only and finds the real agent jar from the JVM's arguments.
 */
public final class DThreadsAgent {

    private DThreadsAgent() {}

    public static void premain(String args, Instrumentation inst) {
        start(args, inst);
        DiagnosticsHook.registerIfWanted(); // never throws
    }

    public static void agentmain(String args, Instrumentation inst) {
        if (DiagnosticsHook.ATTACH_OPTION.equals(args)) {
            DiagnosticsHook.register(); // ./dthreads dump|deadlocks attached: no second start-up
            return;
        }
        start(args, inst);
    }

    /** Set by the first start-up; a JVM given {@code -javaagent} twice runs {@link #start} twice. */
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    private static void start(String args, Instrumentation inst) {
        if (!STARTED.compareAndSet(false, true) || runtimeAlreadyOnBootPath()) {
            System.getLogger(DThreadsAgent.class.getName()).log(System.Logger.Level.WARNING,
                    "dthreads: the agent was given more than once (two -javaagent options, or attached after"
                    + " starting with one); it runs once, this start-up does nothing");
            return;
        }
        try {
            Path agentJar = locateAgentJar();
            inst.appendToBootstrapClassLoaderSearch(new JarFile(BootJar.extract(agentJar).toFile()));
            URLClassLoader isolated = new URLClassLoader("dthreads-agent", new URL[] {agentJar.toUri().toURL()},
                    ClassLoader.getPlatformClassLoader());
            Class.forName("org.dthreads.agent.internal.Installer", true, isolated)
                    .getMethod("install", Instrumentation.class, String.class).invoke(null, inst, args);
        } catch (SecurityException denied) {
            System.getLogger(DThreadsAgent.class.getName()).log(System.Logger.Level.ERROR, "dthreads: the security"
                    + " manager denies the agent (" + denied.getMessage() + "); the application runs without dthreads."
                    + " To run it, add to the policy: grant codeBase \"" + agentCodeBase()
                    + "\" { permission java.security.AllPermission; };");
        } catch (Throwable t) {
            System.getLogger(DThreadsAgent.class.getName()).log(System.Logger.Level.ERROR,
                    "dthreads: the agent could not start; the application runs without dthreads", t);
        }
    }

    /**
     * Whether another start-up (from another copy of this class: a second agent jar, another loader) already
     * put the runtime on the bootstrap class path.
     */
    private static boolean runtimeAlreadyOnBootPath() {
        try {
            Class.forName("org.dthreads.internal.KernelLink", false, null);
            return true;
        } catch (ClassNotFoundException | SecurityException | LinkageError notThere) {
            return false;
        }
    }

    /**
     * The agent jar's URL for a policy file. Its protection domain may be hidden too, but a class may read its
     * own class file: {@code jar:file:/...jar!/org/...}.
     */
    private static String agentCodeBase() {
        java.net.URL self = DThreadsAgent.class.getResource("DThreadsAgent.class");
        String url = self == null ? "" : self.toString();
        int end = url.indexOf("!/");
        return url.startsWith("jar:") && end > 0 ? url.substring("jar:".length(), end) : "file:/path/to/dthreads-agent.jar";
    }

    /**
     * The {@code -javaagent:} jar that carries the runtime: the JVM loads this class from the class
     * path first, which may hold a copy of dthreads-agent without it.
     */
    static Path locateAgentJar() throws Exception {
        try {
            List<String> jvmArgs = java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments();
            for (String arg : jvmArgs) {
                if (arg.startsWith("-javaagent:")) {
                    String spec = arg.substring("-javaagent:".length());
                    int options = spec.indexOf('=');
                    Path jar = Path.of(options < 0 ? spec : spec.substring(0, options)).toAbsolutePath();
                    if (Files.isRegularFile(jar) && BootJar.carriesRuntime(jar)) {
                        return jar;
                    }
                }
            }
        } catch (LinkageError | RuntimeException noManagement) {
            // java.management absent from a trimmed runtime: fall back to where this class came from
        }
        return Path.of(DThreadsAgent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
