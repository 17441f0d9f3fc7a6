package org.dthreads.iiop.internal;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import org.jacorb.orb.portableInterceptor.ORBInitInfoImpl;
import org.omg.PortableInterceptor.ORBInitInfo;

/**
 * The JacORB ORBs on which identity travels through the agent's hooks ({@link JacorbPatch},
 * {@link JacorbHooks}) instead of Portable Interceptors. An ORB is enabled in
 * {@code DThreadsOrbInitializer.pre_init} when the agent patched every hook point of the JacORB on its
 * class path; the patch is global to the JacORB classes, the choice is per ORB (an ORB without the
 * dthreads initializer carries nothing).
 *
 * <p>Thread-safe: the set is a copy-on-write array of weak references (written under the class lock,
 * read without locking on every request; one or two ORBs per JVM in practice).
 */
final class JacorbFastPath {

    static final String INIT_INFO_CLASS = "org.jacorb.orb.portableInterceptor.ORBInitInfoImpl";

    private static volatile WeakReference<?>[] enabled = new WeakReference<?>[0];

    private JacorbFastPath() {}

    /** Whether {@code orb} carries identity through the hooks. */
    static boolean enabled(Object orb) {
        for (WeakReference<?> r : enabled) {
            if (r.get() == orb) {
                return true;
            }
        }
        return false;
    }

    /**
     * @return null if installed on the ORB of {@code info}, otherwise why not (nothing changed)
     */
    static String install(ORBInitInfo info) {
        Object orb = ((ORBInitInfoImpl) info).getORB();
        String missing = unpatched(orb.getClass().getClassLoader());
        if (missing != null) {
            return missing;
        }
        enable(orb);
        return null;
    }

    /** Which patched method is missing (the agent is absent, or refused a JacORB version: it logged why), or null. */
    static String unpatched(ClassLoader loader) {
        String[][] points = {
            {"org.jacorb.orb.Delegate", JacorbPatch.INVOKE_INTERNAL},
            {"org.jacorb.orb.Delegate", JacorbPatch.PREINVOKE},
            {"org.jacorb.orb.Delegate", JacorbPatch.POSTINVOKE},
            {"org.jacorb.poa.RequestProcessor", JacorbPatch.PROCESS},
        };
        for (String[] p : points) {
            if (!declares(loader, p[0], p[1] + JacorbPatch.SUFFIX)) {
                return p[0] + "." + p[1] + " is not patched";
            }
        }
        return null;
    }

    private static boolean declares(ClassLoader loader, String className, String method) {
        try {
            for (java.lang.reflect.Method m : Class.forName(className, false, loader).getDeclaredMethods()) {
                if (m.getName().equals(method)) {
                    return true;
                }
            }
            return false;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static synchronized void enable(Object orb) {
        List<WeakReference<?>> next = new ArrayList<>();
        for (WeakReference<?> r : enabled) {
            Object o = r.get();
            if (o == orb) {
                return;
            }
            if (o != null) {
                next.add(r);
            }
        }
        next.add(new WeakReference<>(orb));
        enabled = next.toArray(new WeakReference<?>[0]);
    }
}
