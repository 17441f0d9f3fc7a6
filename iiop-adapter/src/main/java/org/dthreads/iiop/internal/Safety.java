package org.dthreads.iiop.internal;

/** Which throwables an interceptor may not swallow. */
final class Safety {
    private Safety() {}

    /** Rethrows what must never be swallowed (the JVM is failing); returns otherwise. */
    static void rethrowFatal(Throwable t) {
        if (t instanceof VirtualMachineError v) {
            throw v;
        }
    }
}
