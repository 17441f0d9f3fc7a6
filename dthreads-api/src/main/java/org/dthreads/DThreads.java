package org.dthreads;

import org.dthreads.internal.KernelLink;

/**
 * The dthreads facade: the current thread's equivalence class and scoped bindings of a class.
 *
 * <h2>Threading contract</h2>
 * Every method acts on the calling thread only and is safe to call from any thread. Each thread
 * has a class: the class bound by its innermost open {@link ClassScope} if there is one, otherwise
 * its own class, allocated on first use from this site's counter. A thread that serves a remote
 * call binds the caller's class for the duration of the call (the adapters do this); a thread that
 * never received one keeps its own.
 *
 * <h2>One runtime per JVM</h2>
 * The state behind this facade lives in one place per JVM even when these classes are loaded
 * twice: when the dthreads agent has put the runtime on the bootstrap class path, copies of this
 * class loaded from the application's class path (for example as a Maven dependency, or by a
 * child-first class loader) delegate to the bootstrap runtime.
 */
public final class DThreads {

    private DThreads() {}

    /**
     * The calling thread's class: the innermost bound class, or the thread's own class (allocated
     * lazily, once per thread).
     *
     * @return the calling thread's class, never {@link ThreadClass#NONE}
     */
    public static long currentClass() {
        return KernelLink.currentClass();
    }

    /**
     * Binds {@code threadClass} to the calling thread until the returned scope is closed.
     * Bind and close in the same method (see {@link ClassScope}).
     *
     * @param threadClass the class to bind, usually a caller's class received with a remote call
     * @return the scope to close, in the same method, to restore the previous binding
     * @throws IllegalArgumentException if {@code threadClass} is not {@link ThreadClass#isValid valid};
     *     values from the network must be checked first
     */
    public static ClassScope bind(long threadClass) {
        if (!ThreadClass.isValid(threadClass)) {
            throw new IllegalArgumentException("not a valid thread class: 0x" + Long.toHexString(threadClass));
        }
        return KernelLink.bind(threadClass);
    }

    /**
     * This site's id, the high half of every class this site allocates.
     *
     * @return the site id, unsigned, never 0
     */
    public static int siteId() {
        return KernelLink.siteId();
    }

    /**
     * A random, non-zero value drawn once per start of this site. Peers use it to tell a restarted
     * site from a second live site that presents the same {@link #siteId()}.
     *
     * @return this start's incarnation token, never 0
     */
    public static long siteIncarnation() {
        return KernelLink.siteIncarnation();
    }
}
