package org.dthreads.monitor.probe;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import org.dthreads.monitor.Monitors;

/**
 * Run in a forked JVM by {@code BootDelegationForkedTest}. Loads a second, child-first copy of monitor-lib
 * and dthreads-api, and checks whether that copy sees the monitors entered through the copy this class
 * links to (the bootstrap copy when the agent's layout is simulated with {@code -Xbootclasspath/a}).
 * Prints {@code key=value} lines.
 */
public final class ChildFirstMonitorsProbe {

    /** Loads {@code org.dthreads.*} (except this probe) itself before asking its parent. */
    static final class ChildFirst extends URLClassLoader {
        ChildFirst(URL[] urls, ClassLoader parent) {
            super(urls, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null && name.startsWith("org.dthreads.") && !name.startsWith("org.dthreads.monitor.probe.")) {
                    try {
                        c = findClass(name);
                    } catch (ClassNotFoundException e) {
                        c = null;
                    }
                }
                if (c == null) {
                    return super.loadClass(name, resolve);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }

    /**
     * An exit whose call from the copy into the runtime overflowed is recorded in the copy's own
     * LostExits (what the copy's catch block writes, done here by reflection) and must reach the
     * runtime's copy at the copy's next operation, where it is paid.
     */
    private static boolean forwardsLostExits(ClassLoader loader, Class<?> copy) throws Exception {
        Object lock = new Object();
        Monitors.enter(lock);
        Monitors.enter(lock);
        Class<?> lost = Class.forName("org.dthreads.monitor.internal.LostExits", true, loader);
        synchronized (lost.getField("LOCK").get(null)) {
            ((Object[]) lost.getField("KEYS").get(null))[0] = lock;
            ((int[]) lost.getField("LEVELS").get(null))[0] = 1; // the inner exit, lost in the copy
            lost.getField("pendingRepairs").setBoolean(null, true);
        }
        Object other = new Object();
        copy.getMethod("enter", Object.class).invoke(null, other); // forwards, then the runtime settles
        copy.getMethod("exit", Object.class).invoke(null, other);
        boolean heldOnce = Monitors.holdsLock(lock);
        Monitors.exit(lock); // the outer level
        return heldOnce && !Monitors.holdsLock(lock);
    }

    public static void main(String[] args) throws Exception {
        URL[] urls = {Path.of(args[0]).toUri().toURL(), Path.of(args[1]).toUri().toURL()};
        System.out.println("monitorsOnBootPath=" + (Monitors.class.getClassLoader() == null));
        try (ChildFirst loader = new ChildFirst(urls, ChildFirstMonitorsProbe.class.getClassLoader())) {
            Class<?> copy = Class.forName("org.dthreads.monitor.Monitors", true, loader);
            System.out.println("copyIsDistinct=" + (copy != Monitors.class));
            Method holdsLock = copy.getMethod("holdsLock", Object.class);
            Method exit = copy.getMethod("exit", Object.class);
            Object lock = new Object();
            Monitors.enter(lock);
            System.out.println("copySeesOwner=" + holdsLock.invoke(null, lock));
            boolean exited;
            try {
                exit.invoke(null, lock);
                exited = true;
            } catch (java.lang.reflect.InvocationTargetException e) {
                exited = false;
            }
            System.out.println("copyExitReleases=" + (exited && !Monitors.holdsLock(lock)));
            System.out.println("copyForwardsLostExits=" + forwardsLostExits(loader, copy));
        }
    }
}
