package example.conformance;

import java.net.URL;
import java.nio.file.Path;
import org.dthreads.DThreads;

/**
 * dthreads jars also on the application's class path (as Maven dependencies would put them): one
 * runtime. The args are dthreads-api and monitor-lib jars; a child-first class loader over them (as
 * a web container's) defines second copies of the classes, whose entry points must reach the same
 * runtime.
 */
public final class OneRuntime {

    /** Defines {@code org.dthreads} classes itself before asking its parent. */
    static final class ChildFirst extends java.net.URLClassLoader {
        ChildFirst(URL[] urls) {
            super("child-first", urls, ClassLoader.getPlatformClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null && name.startsWith("org.dthreads.")) {
                    try {
                        c = findClass(name);
                    } catch (ClassNotFoundException notHere) {
                        // fall through to the parent
                    }
                }
                return c != null ? c : super.loadClass(name, resolve);
            }
        }
    }

    synchronized void touch() {
        // makes this class one with monitor operations, so it is rewritten
    }

    public static void main(String[] args) throws Exception {
        URL[] urls = new URL[args.length];
        for (int i = 0; i < args.length; i++) {
            urls[i] = Path.of(args[i]).toUri().toURL();
        }
        System.out.println("api on the boot path: " + (DThreads.class.getClassLoader() == null));
        ClassLoader copies = new ChildFirst(urls);
        Class<?> api = Class.forName("org.dthreads.DThreads", true, copies);
        System.out.println("second copy of the api: " + (api != DThreads.class));
        int viaCopy = (int) api.getMethod("siteId").invoke(null);
        System.out.println("same site id via the copy: " + (viaCopy == DThreads.siteId()));
        Class<?> monitors = Class.forName("org.dthreads.monitor.Monitors", true, copies);
        OneRuntime target = new OneRuntime();
        target.touch();
        monitors.getMethod("enter", Object.class).invoke(null, target);
        System.out.println("held via the copy, seen by rewritten code: " + Thread.holdsLock(target));
        monitors.getMethod("exit", Object.class).invoke(null, target);
        System.out.println("released via the copy: " + !Thread.holdsLock(target));
    }
}
