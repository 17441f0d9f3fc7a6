package org.dthreads.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import org.dthreads.ClassScope;
import org.dthreads.ThreadClass;

/**
 * The entry points of this copy of the API into the JVM's one {@link IdentityKernel} (this copy's
 * own, or the bootstrap copy: see {@link BootDelegation}). The handles are {@code static final},
 * so the JIT inlines them and a call costs what a direct call costs.
 */
public final class KernelLink {

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(KernelLink.class);

    private static final MethodHandle CURRENT_CLASS = kernel("currentClass", MethodType.methodType(long.class));
    private static final MethodHandle BOUND_CLASS = kernel("boundClass", MethodType.methodType(long.class));
    private static final MethodHandle BIND = kernel("bind", MethodType.methodType(int.class, long.class));
    private static final MethodHandle UNBIND = kernel("unbind", MethodType.methodType(boolean.class, int.class));
    private static final MethodHandle FRESH_CLASS = kernel("freshClass", MethodType.methodType(long.class));
    private static final MethodHandle SITE_ID = kernel("siteId", MethodType.methodType(int.class));
    private static final MethodHandle SITE_INCARNATION = kernel("siteIncarnation", MethodType.methodType(long.class));
    private static final MethodHandle OBSERVE_PEER = kernel("observePeer",
            MethodType.methodType(int.class, int.class, long.class, String.class));

    /** Null if the JVM's kernel is an older copy without the cell: then {@link #currentClassCell} answers null. */
    private static final MethodHandle CURRENT_CLASS_CELL = optionalKernel("currentClassCell",
            MethodType.methodType(long[].class));

    private KernelLink() {}

    /** The JVM's kernel's method, or null if it has none (no fallback to this copy's: its state is not the JVM's). */
    private static MethodHandle optionalKernel(String name, MethodType type) {
        try {
            return java.lang.invoke.MethodHandles.publicLookup()
                    .findStatic(BootDelegation.runtimeClass(IdentityKernel.class), name, type);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static MethodHandle kernel(String name, MethodType type) {
        return BootDelegation.staticMethod(IdentityKernel.class, name, type);
    }

    /** Whether this copy of the API delegates to a distinct bootstrap copy of the kernel. */
    public static boolean delegatesToBootstrap() {
        return BootDelegation.runtimeClass(IdentityKernel.class) != IdentityKernel.class;
    }

    public static long currentClass() {
        try {
            return (long) CURRENT_CLASS.invokeExact();
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * The calling thread's current-class cell ({@link IdentityKernel#currentClassCell}), or null if the kernel has
     * none. Element 0 is the current class, or {@link ThreadClass#NONE}: then call {@link #currentClass}. Read it on
     * the calling thread only.
     */
    public static long[] currentClassCell() {
        if (CURRENT_CLASS_CELL == null) {
            return null;
        }
        try {
            return (long[]) CURRENT_CLASS_CELL.invokeExact();
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    public static long boundClass() {
        try {
            return (long) BOUND_CLASS.invokeExact();
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    public static ClassScope bind(long threadClass) {
        try {
            int depth = (int) BIND.invokeExact(threadClass);
            return new Scope(Thread.currentThread(), threadClass, depth);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    public static long freshClass() {
        try {
            return (long) FRESH_CLASS.invokeExact();
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    public static int siteId() {
        try {
            return (int) SITE_ID.invokeExact();
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    public static long siteIncarnation() {
        try {
            return (long) SITE_INCARNATION.invokeExact();
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** See {@link PeerSites#observe}. Never throws. */
    public static PeerSites.Observation observePeer(int siteId, long incarnation, String peer) {
        try {
            return PeerSites.Observation.values()[(int) OBSERVE_PEER.invokeExact(siteId, incarnation, peer)];
        } catch (Throwable t) {
            return PeerSites.Observation.IGNORED;
        }
    }

    private static RuntimeException unexpected(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("dthreads kernel failed", t);
    }

    /** A binding made on {@code owner}; see {@link ClassScope} for the rules. */
    private static final class Scope implements ClassScope {
        private final Thread owner;
        private final long boundClass;
        private final int depth;
        private boolean closed;

        Scope(Thread owner, long boundClass, int depth) {
            this.owner = owner;
            this.boundClass = boundClass;
            this.depth = depth;
        }

        @Override
        public long boundClass() {
            return boundClass;
        }

        @Override
        public void close() {
            if (Thread.currentThread() != owner) {
                LOG.warn("scope-other-thread", "dthreads: a class scope opened on thread '" + owner.getName()
                        + "' was closed on thread '" + Thread.currentThread().getName()
                        + "'; ignored. Bind and close in the same method, on the same thread.");
                return;
            }
            if (closed) {
                LOG.warn("scope-closed-twice", "dthreads: class scope for " + ThreadClass.format(boundClass)
                        + " closed twice; ignored.");
                return;
            }
            boolean popped;
            try {
                popped = (boolean) UNBIND.invokeExact(depth);
            } catch (Throwable t) {
                LOG.error("scope-close-failed", "dthreads: closing a class scope failed: " + t);
                return;
            }
            if (popped) {
                closed = true;
            } else {
                LOG.warn("scope-out-of-order", "dthreads: class scope for " + ThreadClass.format(boundClass)
                        + " (depth " + depth + ") closed while an inner scope is still open; ignored."
                        + " Close scopes innermost first, with try-with-resources.");
            }
        }

        @Override
        public String toString() {
            return "ClassScope[" + ThreadClass.format(boundClass) + ", depth " + depth + "]";
        }
    }
}
