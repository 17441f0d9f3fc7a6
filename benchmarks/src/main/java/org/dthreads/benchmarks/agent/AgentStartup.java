package org.dthreads.benchmarks.agent;

import java.io.IOException;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Start-up cost: a fresh JVM loads every class of H2 (about 950 classes, from this jar, where the
 * shade plugin put them) with {@code Class.forName(name, false, ...)}, without ({@link Plain}) and
 * with ({@link WithAgent}) the agent, which rewrites each at definition. Single shot per fork, many
 * forks; the difference per class is the agent's load-time cost (the agent's own start, copying the
 * runtime to the bootstrap path, is outside the measured window: it runs before main).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
public abstract class AgentStartup {

    static final String PREFIX = "org/h2/";

    @Benchmark
    public int loadAllH2Classes() throws IOException {
        return loadAll(PREFIX);
    }

    /** Loads (without initialising) every class under {@code prefix} in the jar holding H2; returns how many loaded. */
    static int loadAll(String prefix) throws IOException {
        ClassLoader loader = AgentStartup.class.getClassLoader();
        Path jar;
        try {
            jar = Path.of(org.h2.Driver.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IOException(e);
        }
        int loaded = 0;
        try (JarFile file = new JarFile(jar.toFile())) {
            for (JarEntry e : (Iterable<JarEntry>) file.stream()::iterator) {
                String name = e.getName();
                if (name.startsWith(prefix) && name.endsWith(".class") && !name.endsWith("module-info.class")) {
                    try {
                        Class.forName(name.substring(0, name.length() - 6).replace('/', '.'), false, loader);
                        loaded++;
                    } catch (ClassNotFoundException | LinkageError missingOptionalDependency) {
                        // H2's optional integrations (Lucene, OSGi, servlets, ...) are not on the class path
                    }
                }
            }
        }
        return loaded;
    }

    @Fork(value = 10)
    public static class Plain extends AgentStartup {}

    @Fork(value = 10, jvmArgsAppend = {"-javaagent:dthreads-agent/target/dthreads-agent.jar",
            "-Ddthreads.exclude=org.openjdk.jmh."})
    public static class WithAgent extends AgentStartup {}
}
