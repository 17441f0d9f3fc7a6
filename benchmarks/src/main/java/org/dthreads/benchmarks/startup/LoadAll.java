package org.dthreads.benchmarks.startup;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The child JVM of {@link ClassLoadingStartup}: loads (without initialising) every class under a prefix of the
 * jars holding the anchor classes, with {@code Class.forName(name, false, loader)}, and prints how many loaded,
 * the wall time and the loading thread's CPU time (where the agent's transformers run; JIT and GC threads and
 * other processes on a loaded machine are not in it), then the JVM's metaspace in use and its loaded class count.
 *
 * <pre>
 * java [-javaagent:...] -cp benchmarks.jar org.dthreads.benchmarks.startup.LoadAll org/apache/derby/ anchor.Class...
 * </pre>
 */
public final class LoadAll {

    private LoadAll() {}

    public static void main(String[] args) throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean(); // before the clock starts
        ClassLoader loader = LoadAll.class.getClassLoader();
        Set<Path> jars = new LinkedHashSet<>();
        for (int i = 1; i < args.length; i++) {
            String resource = args[i].replace('.', '/') + ".class";
            java.net.URL url = loader.getResource(resource);
            String s = url.toString(); // jar:file:/...!/x/Y.class
            jars.add(Path.of(java.net.URI.create(s.substring("jar:".length(), s.indexOf("!/")))));
        }
        long cpu0 = threads.getCurrentThreadCpuTime();
        long wall0 = System.nanoTime();
        long loaded = 0;
        for (Path jar : jars) {
            try (JarFile file = new JarFile(jar.toFile())) {
                for (JarEntry e : (Iterable<JarEntry>) file.stream()::iterator) {
                    String name = e.getName();
                    if (name.startsWith(args[0]) && name.endsWith(".class") && !name.contains("-")) {
                        try {
                            Class.forName(name.substring(0, name.length() - 6).replace('/', '.'), false, loader);
                            loaded++;
                        } catch (ClassNotFoundException | LinkageError missingOptionalDependency) {
                            // optional integrations are not on the class path: the same in every JVM
                        }
                    }
                }
            }
        }
        long wallMs = (System.nanoTime() - wall0) / 1_000_000;
        long cpuMs = (threads.getCurrentThreadCpuTime() - cpu0) / 1_000_000;
        // after the clock: the whole JVM's metaspace in use and classes loaded (the agent's own included)
        long metaspace = 0;
        for (java.lang.management.MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getName().equals("Metaspace")) {
                metaspace = pool.getUsage().getUsed();
            }
        }
        System.out.println("loaded=" + loaded + " wallMs=" + wallMs + " cpuMs=" + cpuMs + " metaspaceKb=" + metaspace / 1024
                + " jvmClasses=" + ManagementFactory.getClassLoadingMXBean().getLoadedClassCount());
    }
}
