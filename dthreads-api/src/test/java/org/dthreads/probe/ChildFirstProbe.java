package org.dthreads.probe;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import org.dthreads.DThreads;

/**
 * Run in a forked JVM: loads a second copy of the API with a child-first class loader (as a web
 * container would) and prints whether both copies see one identity state.
 */
public final class ChildFirstProbe {

    public static void main(String[] args) throws Exception {
        URL apiClasses = Path.of(args[0]).toUri().toURL();
        try (URLClassLoader childFirst = new URLClassLoader(new URL[] {apiClasses}, ChildFirstProbe.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                synchronized (getClassLoadingLock(name)) {
                    if (name.startsWith("org.dthreads.") && !name.startsWith("org.dthreads.probe.")) {
                        Class<?> c = findLoadedClass(name);
                        if (c == null) {
                            c = findClass(name);
                        }
                        return c;
                    }
                    return super.loadClass(name, resolve);
                }
            }
        }) {
            Class<?> copy = childFirst.loadClass("org.dthreads.DThreads");
            long viaCopy = (long) copy.getMethod("currentClass").invoke(null);
            int siteViaCopy = (int) copy.getMethod("siteId").invoke(null);
            long bound = org.dthreads.ThreadClass.of(77, 88);
            Object scope = copy.getMethod("bind", long.class).invoke(null, bound);
            long seenHereWhileBound = DThreads.currentClass();
            childFirst.loadClass("org.dthreads.ClassScope").getMethod("close").invoke(scope);
            System.out.println("copyIsDistinct=" + (copy != DThreads.class));
            System.out.println("apiOnBootPath=" + (DThreads.class.getClassLoader() == null));
            System.out.println("sameSite=" + (siteViaCopy == DThreads.siteId()));
            System.out.println("sameClass=" + (viaCopy == DThreads.currentClass()));
            System.out.println("bindVisibleAcrossCopies=" + (seenHereWhileBound == bound));
        }
    }
}
