package org.dthreads.iiop.internal;

import org.dthreads.internal.RateLimitedLog;
import org.dthreads.monitor.internal.callbacks.CallbackMode;
import org.omg.PortableInterceptor.ORBInitInfo;

/**
 * Chooses, per ORB, how identity travels: through an ORB-internal fast path where one is available
 * (the GlassFish ORB's request dispatchers, {@link GlassFishFastPath}; JacORB patched by the agent,
 * {@link JacorbFastPath}), otherwise through the portable
 * interceptors ({@link ClientIdentityInterceptor}, {@link ServerIdentityInterceptor}). Both put the same
 * bytes on the wire. {@code -Ddthreads.iiop.path=portable} forces the portable path everywhere.
 *
 * <p>{@code -Ddthreads.callbacks=original} needs the fast path (the moved dispatch and the caller's reply wait are
 * parts of it): on an ORB left on the portable path the mode has no effect, and a warning says so
 * ({@link #originalModeOff}) instead of callbacks silently running in take-over mode.
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
        String type = info.getClass().getName();
        String offWhy = fastPathOff(info, type);
        if (offWhy != null) {
            String note = originalModeOff(CallbackMode.ORIGINAL, type, offWhy);
            if (note != null) {
                LOG.warn("original-mode-off", note);
            }
            return false;
        }
        return true;
    }

    /** Installs the fast path; null if installed, otherwise why not (as the user should read it). */
    private static String fastPathOff(ORBInitInfo info, String type) {
        if ("portable".equalsIgnoreCase(System.getProperty(PATH_PROPERTY, ""))) {
            return "-D" + PATH_PROPERTY + "=portable";
        }
        if (type.equals(JacorbFastPath.INIT_INFO_CLASS)) {
            try {
                // not patched = the agent is absent (normal), or it refused this JacORB and logged why
                String missing = JacorbFastPath.install(info);
                return missing == null ? null : "JacORB is not patched by the dthreads agent (" + missing + ")";
            } catch (RuntimeException | LinkageError e) {
                LOG.warn("jacorb-fast-path-off", "dthreads: JacORB fast path not installed (" + e
                        + "); identity travels through Portable Interceptors (slower, same wire format)");
                return "the JacORB fast path failed to install (" + e + ")";
            }
        }
        if (!type.equals(GlassFishFastPath.INIT_INFO_CLASS)) {
            return "dthreads has no fast path for this ORB (" + type + ")";
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
            return "the GlassFish ORB fast path is not installed (" + why + ")";
        }
        return null;
    }

    /**
     * The warning for an ORB left on the portable path while {@code -Ddthreads.callbacks=original} is set, or null
     * when the mode is not set (nothing to say: take-over is what was asked for).
     *
     * @param original whether original mode is set ({@link CallbackMode#ORIGINAL})
     * @param initInfoType the ORB's {@code ORBInitInfo} class, naming the ORB
     * @param why why the ORB has no fast path
     */
    static String originalModeOff(boolean original, String initInfoType, String why) {
        if (!original) {
            return null;
        }
        return "dthreads: -Ddthreads.callbacks=original has no effect on this ORB (" + initInfoType + "): " + why
                + "; its callbacks run in take-over mode (on an ORB thread, as by default). Original mode on IIOP"
                + " needs the dthreads agent's patches of JacORB or of the GlassFish ORB (docs/user-guide.md)";
    }
}
