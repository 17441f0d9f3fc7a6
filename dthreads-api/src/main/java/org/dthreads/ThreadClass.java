package org.dthreads;

/**
 * The layout of a <em>thread equivalence class</em>: the identity that dthreads gives to a logical
 * thread whose control flow may cross JVMs.
 *
 * <p>A class is a {@code long}. Its high 32 bits are the id of the site (JVM) whose thread started
 * the class; its low 32 bits are that site's per-start thread id, taken from a counter (never
 * {@link Thread#getId()}, which the JVM may reuse). Both halves are unsigned and never zero, so a
 * valid class is never {@code 0}; {@link #NONE} ({@code 0}) means "no class".
 *
 * <pre>
 *   bits 63 ........... 32   bits 31 ............ 0
 *   +--------------------+   +--------------------+
 *   | site id   (!= 0)   |   | thread id (!= 0)   |
 *   +--------------------+   +--------------------+
 * </pre>
 *
 * <p>The same layout travels on the wire (see {@code docs/wire-format.md}). This class only
 * packs and unpacks; it holds no state and is safe to use from any thread.
 */
public final class ThreadClass {

    /** "No class": never the class of a thread. */
    public static final long NONE = 0L;

    /** How far the site id is shifted: the site id occupies bits 63..32. */
    public static final int SITE_SHIFT = 32;

    /** Mask of the thread-id half: bits 31..0. */
    public static final long THREAD_MASK = 0xFFFF_FFFFL;

    private ThreadClass() {}

    /**
     * Packs a site id and a thread id into a class.
     *
     * @param siteId   the site id, unsigned, not 0
     * @param threadId the thread id, unsigned, not 0
     * @return the packed class, never {@link #NONE}
     * @throws IllegalArgumentException if either half is 0
     */
    public static long of(int siteId, int threadId) {
        if (siteId == 0 || threadId == 0) {
            throw new IllegalArgumentException(
                    "site id and thread id must both be non-zero: site=" + Integer.toUnsignedString(siteId)
                            + ", thread=" + Integer.toUnsignedString(threadId));
        }
        return ((long) siteId << SITE_SHIFT) | (threadId & THREAD_MASK);
    }

    /**
     * The site id of a class.
     *
     * @param threadClass a packed class
     * @return bits 63..32, as an unsigned {@code int}
     */
    public static int siteId(long threadClass) {
        return (int) (threadClass >>> SITE_SHIFT);
    }

    /**
     * The thread id of a class.
     *
     * @param threadClass a packed class
     * @return bits 31..0, as an unsigned {@code int}
     */
    public static int threadId(long threadClass) {
        return (int) threadClass;
    }

    /**
     * Whether {@code threadClass} could have been issued by a site: both halves non-zero. Values
     * read from the network must pass this check before they are bound.
     *
     * @param threadClass a packed class
     * @return true if both halves are non-zero
     */
    public static boolean isValid(long threadClass) {
        return siteId(threadClass) != 0 && threadId(threadClass) != 0;
    }

    /**
     * A fixed-width, human-readable form: {@code "0000002a:00000007"} (site:thread, unsigned hex),
     * or {@code "none"} for {@link #NONE}. Used in logs and monitor dumps.
     *
     * @param threadClass a packed class
     * @return the formatted class
     */
    public static String format(long threadClass) {
        if (threadClass == NONE) {
            return "none";
        }
        return String.format("%08x:%08x", siteId(threadClass), threadId(threadClass));
    }
}
