package org.dthreads.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Finds the one copy of a dthreads runtime class that holds the JVM's state.
 *
 * <p>The agent puts the dthreads runtime on the bootstrap class path. Class loaders that delegate
 * to their parent first then resolve every {@code org.dthreads} class to that copy and nothing
 * needs doing. A child-first loader (a web container, a plug-in system) or a copy on the class path
 * loaded before delegation can still define a second copy; that copy must not start a second
 * runtime. Its entry points therefore call through method handles obtained here, which point at
 * the bootstrap copy whenever there is a distinct one, and at the local copy otherwise.
 *
 * <p>Entry-point signatures use only JDK types (primitives, {@code String}), so the two copies
 * need not share any dthreads type. Handles are meant for {@code static final} fields, where the
 * JIT inlines them.
 */
public final class BootDelegation {

    private BootDelegation() {}

    /**
     * The class holding the state for {@code local}: the bootstrap loader's copy of the same name
     * when it exists and is not {@code local} itself, otherwise {@code local}.
     */
    public static Class<?> runtimeClass(Class<?> local) {
        if (local.getClassLoader() == null) {
            return local;
        }
        try {
            Class<?> boot = Class.forName(local.getName(), false, null);
            return boot;
        } catch (ClassNotFoundException | LinkageError e) {
            return local;
        }
    }

    /**
     * A handle to the public static method {@code name} of {@link #runtimeClass(Class)}; falls back
     * to {@code local}'s own method if the bootstrap copy lacks it (an incompatible version), with
     * an error logged.
     */
    public static MethodHandle staticMethod(Class<?> local, String name, MethodType type) {
        Class<?> target = runtimeClass(local);
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        if (target != local) {
            try {
                return lookup.findStatic(target, name, type);
            } catch (ReflectiveOperationException | RuntimeException e) {
                RateLimitedLog.forClass(BootDelegation.class).error("incompatible-boot-runtime",
                        "dthreads: the bootstrap copy of " + local.getName() + " has no " + name + type
                                + " (different dthreads versions on the boot and class path?); this class loader"
                                + " keeps its own state, so identity is not shared with the agent: " + e);
            }
        }
        try {
            return lookup.findStatic(local, name, type);
        } catch (ReflectiveOperationException e) {
            throw new LinkageError("dthreads: missing " + local.getName() + "." + name + type, e);
        }
    }
}
