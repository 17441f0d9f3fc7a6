package org.dthreads.benchmarks.rmi;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The site side of {@link CallbackPairs}' {@code run} and {@code where} commands, shared by the JRMP and IIOP sites.
 * {@code run} times its calls on the site's reading thread, or on a virtual thread when the site runs with
 * {@code -Dbench.virtualCaller=true} (JDK 21 or later; reached through a method handle, this module compiles for
 * Java 17). {@link #served()} counts every {@code bounce} served here by where it ran: on that calling thread (in
 * {@code -Ddthreads.callbacks=original} mode, every callback) or elsewhere (take-over mode, and every call at the
 * callee); {@code where} prints the counts, so that a run checks the mode did what is measured (a benchmark jar
 * with a stale dthreads module measured take-over mode twice).
 */
public final class CallbackRuns {

    private static final boolean VIRTUAL = Boolean.getBoolean("bench.virtualCaller");

    private volatile Thread caller;
    private final AtomicLong onCaller = new AtomicLong();
    private final AtomicLong elsewhere = new AtomicLong();

    /** Counts one {@code bounce} served on the current thread. */
    public void served() {
        (Thread.currentThread() == caller ? onCaller : elsewhere).incrementAndGet();
    }

    /** The {@code where} command's answer: {@code WHERE <on the calling thread> <elsewhere>}. */
    public String where() {
        return "WHERE " + onCaller.get() + " " + elsewhere.get();
    }

    /**
     * The {@code run} command: {@code calls} timed calls of {@code call}, as their median, on the current (the reading)
     * thread, or on a new virtual thread with {@code -Dbench.virtualCaller=true}.
     */
    public String run(Runnable call, int calls) throws InterruptedException {
        AtomicReference<String> out = new AtomicReference<>();
        Runnable timed = () -> {
            caller = Thread.currentThread();
            out.set(CallbackPairs.median(call, calls));
        };
        if (VIRTUAL) {
            startVirtual(timed).join();
        } else {
            timed.run();
        }
        return out.get();
    }

    private static Thread startVirtual(Runnable task) {
        try {
            MethodHandle start = MethodHandles.publicLookup().findStatic(Thread.class, "startVirtualThread",
                    MethodType.methodType(Thread.class, Runnable.class));
            return (Thread) start.invoke(task);
        } catch (Throwable t) {
            throw new IllegalStateException("-Dbench.virtualCaller=true needs JDK 21 or later", t);
        }
    }
}
