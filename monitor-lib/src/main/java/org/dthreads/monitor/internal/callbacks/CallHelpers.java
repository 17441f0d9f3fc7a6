package org.dthreads.monitor.internal.callbacks;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ThreadFactory;
import org.dthreads.monitor.internal.ThreadKinds;

/**
 * The helper threads that make outgoing calls for waiting callers ({@link CallbackOutgoingCall}): a virtual thread
 * for a virtual caller (JDK 21 and later), else a platform helper taken from this JVM's stack of idle ones
 * ({@link CallerHelper}: as many as calls were in flight at the peak, parked between calls, woken by a direct
 * {@code unpark}). A virtual caller parks without holding a carrier, and so does a virtual helper blocked in its
 * socket read, so 1,000 virtual threads in calls cost no 1,000 platform threads; a platform caller gets a
 * platform helper (no virtual-thread scheduler in the way of its reply).
 *
 * <p>The code is compiled for Java 17: {@code Thread.ofVirtual()} is reached through method handles looked up once
 * ({@code Thread.isVirtual()} through {@link ThreadKinds}); on JDK 17 to 20 they are absent and every helper is a platform thread.
 *
 * <h2>Concurrency</h2>
 * Stateless but for the virtual factory (safe for concurrent use, per {@code Thread.Builder.factory()}); the
 * platform helpers' hand-off is {@link CallerHelper}'s.
 */
final class CallHelpers {

    /** {@code Thread.ofVirtual().name("dthreads-call-v", 1).factory()}; null before JDK 21. */
    private static final ThreadFactory VIRTUAL;

    static {
        ThreadFactory virtual = null;
        try {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            Class<?> builder = Class.forName("java.lang.Thread$Builder");
            Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
            Object b = lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(ofVirtual)).invoke();
            b = lookup.findVirtual(builder, "name", MethodType.methodType(builder, String.class, long.class))
                    .invoke(b, "dthreads-call-v", 1L);
            virtual = (ThreadFactory) lookup.findVirtual(builder, "factory", MethodType.methodType(ThreadFactory.class))
                    .invoke(b);
        } catch (Throwable beforeJdk21) { // ClassNotFound, NoSuchMethod: platform helpers only
            virtual = null;
        }
        VIRTUAL = virtual;
    }

    private CallHelpers() {}

    /**
     * Runs {@code work} on a helper thread, virtual if the calling thread is, then publishes {@code reply}
     * ({@code work} records the call's outcome in it; a {@code Throwable} escaping {@code work} is recorded as the
     * outcome).
     *
     * @throws OutOfMemoryError if no thread can start (nothing runs)
     */
    static void start(Runnable work, CallbackReply reply) {
        if (isVirtual(Thread.currentThread())) {
            VIRTUAL.newThread(() -> {
                try {
                    work.run();
                } catch (Throwable t) {
                    reply.record(null, t);
                }
                reply.publish();
            }).start();
        } else {
            CallerHelper.handOver(work, reply);
        }
    }

    /** Whether {@code t} is a virtual thread (false before JDK 21). */
    static boolean isVirtual(Thread t) {
        return VIRTUAL != null && ThreadKinds.isVirtual(t);
    }
}
