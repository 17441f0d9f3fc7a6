package org.dthreads.agent;

import java.lang.instrument.Instrumentation;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
    }

    public static void agentmain(String args, Instrumentation inst) {
        start(args, inst);
    }

    private static void start(String args, Instrumentation inst) {
        try {
            Path agentJar = locateAgentJar();
            inst.appendToBootstrapClassLoaderSearch(new JarFile(BootJar.extract(agentJar).toFile()));
            URLClassLoader isolated = new URLClassLoader("dthreads-agent", new URL[] {agentJar.toUri().toURL()},
                    ClassLoader.getPlatformClassLoader());
            Class.forName("org.dthreads.agent.internal.Installer", true, isolated)
                    .getMethod("install", Instrumentation.class, String.class).invoke(null, inst, args);
        } catch (Throwable t) {
            System.getLogger(DThreadsAgent.class.getName()).log(System.Logger.Level.ERROR,
                    "dthreads: the agent could not start; the application runs without dthreads", t);
        }
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
