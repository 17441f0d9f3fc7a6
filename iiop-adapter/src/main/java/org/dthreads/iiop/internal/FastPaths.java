package org.dthreads.iiop.internal;

import org.dthreads.internal.RateLimitedLog;
import org.omg.PortableInterceptor.ORBInitInfo;

/**
 * Chooses, per ORB, how identity travels: through an ORB-internal fast path where one is available
 * (the GlassFish ORB's request dispatchers, {@link GlassFishFastPath}; JacORB patched by the agent,
 * {@link JacorbFastPath}), otherwise through the portable
 * interceptors ({@link ClientIdentityInterceptor}, {@link ServerIdentityInterceptor}). Both put the same
 * bytes on the wire. {@code -Ddthreads.iiop.path=portable} forces the portable path everywhere.
 *
 * <p>Called from {@code DThreadsOrbInitializer.pre_init}; stateless apart from the log.
 */
public final class FastPaths {

    /** System property: {@code portable} forces the Portable Interceptor path; anything else, or unset: auto. */
    public static final String PATH_PROPERTY = "dthreads.iiop.path";

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(FastPaths.class);

    private FastPaths() {}

    /**
     * Installs a fast path on the ORB being initialized, if there is one for it.
     *
     * @param info the ORB's initialization info
     * @return true if identity travels through the fast path on this ORB (the caller registers no
     *     interceptors), false if the caller must register the portable interceptors
     */
    public static boolean install(ORBInitInfo info) {
        if ("portable".equalsIgnoreCase(System.getProperty(PATH_PROPERTY, ""))) {
            return false;
        }
        String type = info.getClass().getName();
        if (type.equals(JacorbFastPath.INIT_INFO_CLASS)) {
            try {
                // not patched = the agent is absent (normal), or it refused this JacORB and logged why
                return JacorbFastPath.install(info) == null;
            } catch (RuntimeException | LinkageError e) {
                LOG.warn("jacorb-fast-path-off", "dthreads: JacORB fast path not installed (" + e
                        + "); identity travels through Portable Interceptors (slower, same wire format)");
                return false;
            }
        }
        if (!type.equals(GlassFishFastPath.INIT_INFO_CLASS)) {
            return false;
        }
        String why;
        try {
            why = GlassFishFastPath.install(info);
        } catch (RuntimeException | LinkageError e) {
            why = "this GlassFish ORB does not link against the 4.2.5 dispatcher API (" + e + ")";
        }
        if (why != null) {
            LOG.warn("glassfish-fast-path-off", "dthreads: GlassFish ORB fast path not installed: " + why
                    + "; identity travels through Portable Interceptors (slower, same wire format)");
            return false;
        }
        return true;
    }
}
