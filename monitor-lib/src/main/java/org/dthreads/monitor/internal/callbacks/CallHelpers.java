package org.dthreads.monitor.internal.callbacks;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.dthreads.monitor.internal.ThreadKinds;

/**
 * The helper threads that make outgoing calls for waiting callers ({@link CallbackOutgoingCall}): a virtual thread
 * for a virtual caller (JDK 21 and later), a pooled platform thread otherwise. A virtual caller parks without
 * holding a carrier, and so does a virtual helper blocked in its socket read, so 1,000 virtual threads in calls
 * cost no 1,000 platform threads; a platform caller keeps a platform helper (no virtual-thread scheduler in the
 * way of its reply).
 *
 * <p>The code is compiled for Java 17: {@code Thread.ofVirtual()} is reached through method handles looked up once
 * ({@code Thread.isVirtual()} through {@link ThreadKinds}); on JDK 17 to 20 they are absent and every helper is a platform thread.
 *
 * <h2>Concurrency</h2>
 * Stateless but for the pool ({@code ThreadPoolExecutor}: one daemon thread per call in flight, idle ones end
 * after 30 s) and the virtual factory (safe for concurrent use, per {@code Thread.Builder.factory()}).
 */
final class CallHelpers {

    private static final AtomicInteger NUMBER = new AtomicInteger();
    private static final ThreadPoolExecutor PLATFORM = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
            new SynchronousQueue<>(), task -> {
                Thread t = new Thread(task, "dthreads-call-" + NUMBER.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
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
     * Runs {@code task} on a new helper thread: virtual if the calling thread is.
     *
     * @throws java.util.concurrent.RejectedExecutionException or {@link OutOfMemoryError} if no thread can start
     */
    static void start(Runnable task) {
        if (isVirtual(Thread.currentThread())) {
            VIRTUAL.newThread(task).start();
        } else {
            PLATFORM.execute(task);
        }
    }

    /** Whether {@code t} is a virtual thread (false before JDK 21). */
    static boolean isVirtual(Thread t) {
        return VIRTUAL != null && ThreadKinds.isVirtual(t);
    }
}
