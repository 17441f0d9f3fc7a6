package org.dthreads.internal;

import java.util.Arrays;
import org.dthreads.ThreadClass;

/**
 * The per-JVM identity state: this site's id and incarnation, the thread-id counter, and each
 * thread's class bindings. Exactly one copy of this class holds state in a JVM: other copies reach
 * it through {@link KernelLink} (see {@link BootDelegation}); nothing else should call it directly.
 *
 * <h2>Design</h2>
 * Each thread has a {@link ThreadState} in a {@link ThreadLocal}, read and written only by that
 * thread, so no field here needs synchronization; the counter is an
 * {@link java.util.concurrent.atomic.AtomicLong} inside {@link ThreadIdAllocator}. A thread's
 * current class is the class of its innermost open binding, else its own class, allocated on first
 * use. Bindings form a stack: {@link #bind} pushes the previous binding and returns the new depth,
 * {@link #unbind} pops only if given the current depth, so a scope closed out of order changes
 * nothing.
 *
 * <p>Public static methods take and return only primitives, so that a copy of the API loaded by
 * another class loader can call them through method handles.
 */
public final class IdentityKernel {

    private static final SiteConfig CONFIG = SiteConfig.fromSystemProperties();
    private static final RateLimitedLog LOG = RateLimitedLog.forClass(IdentityKernel.class);
    private static final int SITE_ID = CONFIG.siteId();
    private static final ThreadIdAllocator ALLOCATOR = new ThreadIdAllocator(CONFIG.counterOrigin(), 0, new OnWrap());
    private static final PeerSites PEERS = PeerSites.forSite(SITE_ID, CONFIG.incarnation());
    private static final ThreadLocal<ThreadState> STATE = new StateLocal();

    // OnWrap and StateLocal: classes, not a lambda and a method reference, which this class's initializer (run at
    // the agent's start) spun into hidden classes (issue 16)
    private static final class OnWrap implements Runnable {
        @Override
        public void run() {
            LOG.warn("thread-id-wrap", "dthreads: site " + Integer.toUnsignedString(SITE_ID)
                    + " has allocated 4294967295 thread classes; the thread-id counter wrapped and ids are"
                    + " reused from now on (a thread alive since the previous cycle could share its class)");
        }
    }

    private static final class StateLocal extends ThreadLocal<ThreadState> {
        @Override
        protected ThreadState initialValue() {
            return new ThreadState();
        }
    }

    static {
        if (CONFIG.problem() != null) {
            LOG.error("bad-site-config", "dthreads: " + CONFIG.problem());
        }
    }

    /** One thread's classes. Confined to its thread. */
    private static final class ThreadState {
        long own;
        long bound;
        int depth;
        long[] saved = new long[4];
        /**
         * The current class ({@code bound}, else {@code own}), or {@link ThreadClass#NONE} until {@link #currentClass}
         * allocates {@code own}: kept up to date by every change above, so the monitor runtime, which holds it in its
         * per-thread state, reads the class without a second thread-local look-up ({@link #currentClassCell}).
         */
        final long[] current = new long[1];

        void updateCurrent() {
            current[0] = bound != ThreadClass.NONE ? bound : own;
        }
    }

    private IdentityKernel() {}

    public static long currentClass() {
        ThreadState state = STATE.get();
        if (state.bound != ThreadClass.NONE) {
            return state.bound;
        }
        if (state.own == ThreadClass.NONE) {
            state.own = freshClass();
            state.updateCurrent();
        }
        return state.own;
    }

    /**
     * The calling thread's current-class cell: element 0 is what {@link #currentClass} returns, or
     * {@link ThreadClass#NONE} until the thread's own class is allocated (call {@link #currentClass} then). Written
     * only by this class, on the calling thread; the caller reads it on the same thread only (a {@code long[]}: a JDK
     * type, see {@link BootDelegation}). For the monitor runtime's enter and exit, which already hold a per-thread
     * object and would otherwise pay a second thread-local look-up per operation.
     */
    public static long[] currentClassCell() {
        return STATE.get().current;
    }

    /** The innermost bound class, or {@link ThreadClass#NONE} if the thread has no open binding. */
    public static long boundClass() {
        return STATE.get().bound;
    }

    /** Binds {@code threadClass} (already validated) and returns the new binding depth (&ge; 1). */
    public static int bind(long threadClass) {
        ThreadState state = STATE.get();
        if (state.depth == state.saved.length) {
            state.saved = Arrays.copyOf(state.saved, state.depth * 2);
        }
        state.saved[state.depth++] = state.bound;
        state.bound = threadClass;
        state.updateCurrent();
        return state.depth;
    }

    /**
     * Restores the binding that {@link #bind} replaced, if {@code depth} is the current depth.
     *
     * @return false, changing nothing, if {@code depth} is not the innermost binding
     */
    public static boolean unbind(int depth) {
        ThreadState state = STATE.get();
        if (depth <= 0 || depth != state.depth) {
            return false;
        }
        state.bound = state.saved[--state.depth];
        state.updateCurrent();
        return true;
    }

    /** A class never handed out before in this cycle of the counter. */
    public static long freshClass() {
        return ThreadClass.of(SITE_ID, ALLOCATOR.next());
    }

    public static int siteId() {
        return SITE_ID;
    }

    public static long siteIncarnation() {
        return CONFIG.incarnation();
    }

    public static boolean siteIdConfigured() {
        return CONFIG.configured();
    }

    /** See {@link PeerSites#observe}; returns the outcome's ordinal. */
    public static int observePeer(int siteId, long incarnation, String peer) {
        return PEERS.observe(siteId, incarnation, peer).ordinal();
    }
}
