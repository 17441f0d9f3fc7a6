package org.dthreads.monitor.internal.rewriter;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;

/**
 * Runs shape fixtures from class directories, one fresh loader per directory, and prints
 * {@code <label> <fixture> <transcript>} lines. Used by {@link RewriterShapesTest} in a forked
 * Temurin 25 JVM for version-69 class files, which the Java 17 test JVM cannot load.
 *
 * <p>Arguments: {@code label=dir} pairs, then fixture names (package {@code shapes}).
 */
public final class ShapesMain {
    private ShapesMain() {}

    public static void main(String[] args) throws Exception {
        for (String arg : args) {
            if (!arg.contains("=")) {
                continue;
            }
            String label = arg.substring(0, arg.indexOf('='));
            URL dir = new File(arg.substring(arg.indexOf('=') + 1)).toURI().toURL();
            try (URLClassLoader loader = new URLClassLoader(new URL[] {dir}, ShapesMain.class.getClassLoader())) {
                for (String name : args) {
                    if (!name.contains("=")) {
                        System.out.println(label + " " + name + " " + run(loader, name));
                    }
                }
            }
        }
        System.out.flush();
    }

    static String run(ClassLoader loader, String fixture) {
        try {
            return String.valueOf(Class.forName("shapes." + fixture, true, loader).getMethod("run").invoke(null));
        } catch (ReflectiveOperationException | LinkageError e) {
            Throwable cause = e instanceof java.lang.reflect.InvocationTargetException ? e.getCause() : e;
            return "FAILED " + cause;
        }
    }
}
