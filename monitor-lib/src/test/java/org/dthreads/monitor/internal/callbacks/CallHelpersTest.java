package org.dthreads.monitor.internal.callbacks;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** {@link CallHelpers}: a platform caller gets its kept platform helper; a virtual caller (JDK 21+) a virtual one. */
class CallHelpersTest {

    @Test
    void aPlatformCallersHelperIsAPlatformDaemonThread() throws Exception {
        assertFalse(CallHelpers.isVirtual(Thread.currentThread()));
        CompletableFuture<Thread> helper = new CompletableFuture<>();
        CallHelpers.start(() -> helper.complete(Thread.currentThread()), new CallbackReply(Thread.currentThread()));
        Thread t = helper.get(10, TimeUnit.SECONDS);
        assertFalse(CallHelpers.isVirtual(t));
        assertTrue(t.isDaemon() && t.getName().startsWith("dthreads-call-") && !t.getName().startsWith("dthreads-call-v"),
                t::toString);
    }

    @Test
    void aVirtualCallersHelperIsVirtual() throws Throwable {
        Assumptions.assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21");
        CompletableFuture<Thread> helper = new CompletableFuture<>();
        Runnable caller = () -> CallHelpers.start(() -> helper.complete(Thread.currentThread()),
                new CallbackReply(Thread.currentThread()));
        MethodHandles.publicLookup().findStatic(Thread.class, "startVirtualThread",
                MethodType.methodType(Thread.class, Runnable.class)).invoke(caller);
        Thread t = helper.get(10, TimeUnit.SECONDS);
        assertTrue(CallHelpers.isVirtual(t), t::toString);
        assertTrue(t.getName().startsWith("dthreads-call-v"), t::toString);
    }
}
