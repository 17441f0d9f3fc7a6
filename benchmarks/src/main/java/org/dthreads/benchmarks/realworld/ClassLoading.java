package org.dthreads.benchmarks.realworld;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Start-up: loads (without initialising) every class of a library from the benchmarks jar, where the
 * shade plugin put it, with {@code Class.forName(name, false, loader)}; under the agent each class is
 * rewritten at definition. Classes that need an optional dependency not on the class path are counted
 * as skipped (the same in every JVM, so the count is the check).
 */
final class ClassLoading {

    private ClassLoading() {}

    /**
     * Loads every class under {@code prefix} (a path such as {@code org/h2/}) in the jars holding the
     * {@code anchors} (one jar when run from the shaded benchmarks jar; the library's own jars in a
     * test); returns how many loaded.
     */
    static long loadAll(String prefix, Class<?>... anchors) throws IOException {
        ClassLoader loader = ClassLoading.class.getClassLoader();
        Set<Path> jars = new LinkedHashSet<>();
        for (Class<?> anchor : anchors) {
            try {
                jars.add(Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI()));
            } catch (URISyntaxException e) {
                throw new IOException(e);
            }
        }
        long loaded = 0;
        for (Path jar : jars) {
            try (JarFile file = new JarFile(jar.toFile())) {
                for (JarEntry e : (Iterable<JarEntry>) file.stream()::iterator) {
                    String name = e.getName();
                    if (name.startsWith(prefix) && name.endsWith(".class") && !name.contains("-")) {
                        try {
                            Class.forName(name.substring(0, name.length() - 6).replace('/', '.'), false, loader);
                            loaded++;
                        } catch (ClassNotFoundException | LinkageError missingOptionalDependency) {
                            // optional integrations (OSGi, Lucene, servlets, ...) are not on the class path
                        }
                    }
                }
            }
        }
        return loaded;
    }
}
