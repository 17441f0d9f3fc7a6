package org.dthreads;

/**
 * A binding of a thread equivalence class to the current thread, made by {@link DThreads#bind(long)}
 * and undone by {@link #close()}.
 *
 * <p>Rules: bind and close in the same method, on the same thread, in try-with-resources:
 *
 * <pre>{@code
 * try (ClassScope scope = DThreads.bind(callerClass)) {
 *     return servant.call(args);
 * }
 * }</pre>
 *
 * <p>Closing restores the binding that was in force when this scope was opened. Scopes nest; each
 * must be closed before the one that encloses it. A close that breaks these rules (out of order,
 * twice, or from another thread) changes nothing and is logged: the runtime never throws from
 * {@code close()}.
 *
 * <p>Not thread-safe: a scope belongs to the thread that opened it.
 */
public interface ClassScope extends AutoCloseable {

    /**
     * The class this scope bound.
     *
     * @return the bound class, never {@link ThreadClass#NONE}
     */
    long boundClass();

    /** Restores the previous binding; never throws. */
    @Override
    void close();
}
