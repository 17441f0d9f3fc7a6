package org.dthreads.monitor.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * {@code Thread.isVirtual()} for code compiled for Java 17: looked up once through a method handle; on JDK 17 to 20,
 * which have no virtual threads, every thread is a platform thread. Stateless.
 */
public final class ThreadKinds {
    private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

    private ThreadKinds() {}

    /** Whether {@code t} is a virtual thread (false before JDK 21). */
    public static boolean isVirtual(Thread t) {
        if (IS_VIRTUAL == null) {
            return false;
        }
        try {
            return (boolean) IS_VIRTUAL.invokeExact(t);
        } catch (Throwable cannot) { // isVirtual() throws nothing
            return false;
        }
    }

    private static MethodHandle isVirtualHandle() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
        } catch (ReflectiveOperationException | RuntimeException beforeJdk21) {
            return null;
        }
    }
}
