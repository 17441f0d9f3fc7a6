package org.dthreads.rmi.internal;

import org.dthreads.ClassScope;
import org.dthreads.ThreadClass;
import org.dthreads.internal.KernelLink;
import org.dthreads.internal.RateLimitedLog;

/**
 * Server side of a twin method: called first thing by every twin the rewriter adds, on the RMI
 * thread that serves the call. The twin closes the returned scope in a {@code finally}, so a pooled
 * RMI thread never keeps the caller's class after the call.
 *
 * <p>Runs on the bootstrap path with the rest of the runtime; JDK and dthreads-api types only.
 */
public final class TwinSupport {

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(TwinSupport.class);

    private TwinSupport() {}

    /**
     * Binds the caller's class for the call. A class that is not valid (0, or a zero half: a buggy or
     * hostile peer) is replaced by a fresh class, with a rate-limited warning; this never throws.
     */
    public static ClassScope enter(long callerClass) {
        if (ThreadClass.isValid(callerClass)) {
            return KernelLink.bind(callerClass);
        }
        LOG.warn("invalid-jrmp-class", "dthreads: a JRMP call carried an invalid thread class 0x"
                + Long.toHexString(callerClass) + "; serving it as a fresh class");
        return KernelLink.bind(KernelLink.freshClass());
    }
}
