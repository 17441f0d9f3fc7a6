package org.dthreads.junit;

import org.dthreads.junit.internal.SiteRuntimeImpl;

/**
 * Static access to the site runtime from code that runs inside a site, for main classes started
 * with {@link SiteSpec#main(String, String, String...)} that want to publish endpoints or register
 * steps.
 *
 * <p>Thread-safe.
 */
public final class SiteRuntime {

    private SiteRuntime() {}

    /**
     * This site's context.
     *
     * @return the context of the site this JVM runs
     * @throws IllegalStateException if this JVM was not started by the kit's {@link SiteMain}
     */
    public static SiteContext context() {
        SiteRuntimeImpl rt = SiteRuntimeImpl.current();
        if (rt == null) {
            throw new IllegalStateException("not running in a dthreads site (started by org.dthreads.junit.SiteMain)");
        }
        return rt;
    }

    /**
     * Whether this JVM is a site started by the kit.
     *
     * @return {@code true} if this JVM was started by the kit's {@link SiteMain}
     */
    public static boolean isSite() {
        return SiteRuntimeImpl.current() != null;
    }
}
