package org.dthreads.benchmarks.monitor;

import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Issue 18's floor: what two thread wake-ups cost on this machine, the price the original callback mode pays per call
 * (the caller parks until its helper's reply, the helper parks until it gets work). A round trip between the
 * benchmark thread and a partner thread, each waking the other once:
 * <ul>
 *   <li>{@code roundTrip} with {@code spinMicros=0}: a volatile sequence number and {@code LockSupport.park/unpark}
 *       on both sides (the primitive of {@code CallbackMailbox}, {@code CallbackReply} and
 *       {@code CallbackInvocation});</li>
 *   <li>{@code poolHandOff}: the call path's shape, {@code execute} on a cached {@code ThreadPoolExecutor} over a
 *       {@code SynchronousQueue} (as {@code CallHelpers}' platform pool: the idle helper waits in the queue) and the
 *       task unparking the caller, who parks until it ran;</li>
 *   <li>{@code roundTrip} with {@code spinMicros > 0}: each side first spins up to {@code spinMicros} with
 *       {@code Thread.onSpinWait} before it parks: what bounded spinning could save when the other side answers
 *       within the bound (and what it costs the other cores when it does not).</li>
 * </ul>
 * Run: {@code java -jar benchmarks/target/benchmarks.jar WakeUpRoundTrip -f 2 -wi 5 -i 5 -w 1s -r 1s}
 * ({@code poolHandOff} does not use {@code spinMicros}: add {@code -p spinMicros=0} to run it once).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class WakeUpRoundTrip {

    /** The partner thread and the two sequence numbers it shares with the benchmark thread. */
    @State(Scope.Thread)
    public static class Pair {
        /** Spin bound of both sides of {@code roundTrip} before they park; 0: park at once (plain park/unpark). */
        @Param({"0", "5", "20"})
        public int spinMicros;

        volatile long asked;    // benchmark thread -> partner
        volatile long answered; // partner -> benchmark thread
        volatile boolean stop;
        long pooled;               // poolHandOff's requests (benchmark thread only)
        volatile long poolAnswered; // helper -> benchmark thread
        Thread caller;
        Thread partner;
        ThreadPoolExecutor pool;

        @Setup
        public void start() { // a partner per trial; idle (parked) during poolHandOff
            caller = Thread.currentThread();
            long spinNanos = TimeUnit.MICROSECONDS.toNanos(spinMicros);
            partner = new Thread(() -> {
                long seen = 0;
                while (!stop) {
                    long a = awaitChange(() -> asked, seen, spinNanos);
                    if (a != seen) {
                        seen = a;
                        answered = a;
                        LockSupport.unpark(caller);
                    }
                }
            }, "wake-up-partner");
            partner.setDaemon(true);
            partner.start();
            pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "wake-up-helper");
                t.setDaemon(true);
                return t;
            });
        }

        @TearDown
        public void end() throws InterruptedException {
            stop = true;
            LockSupport.unpark(partner);
            partner.join();
            pool.shutdownNow();
        }
    }

    interface LongRead {
        long get();
    }

    /** Waits until {@code value} differs from {@code old}: spins up to {@code spinNanos}, then parks (a stop may end it early). */
    static long awaitChange(LongRead value, long old, long spinNanos) {
        long v = value.get();
        if (v != old || spinNanos <= 0) {
            if (v == old) {
                LockSupport.park();
                v = value.get();
            }
            return v;
        }
        long deadline = System.nanoTime() + spinNanos;
        while ((v = value.get()) == old && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
        if (v == old) {
            LockSupport.park();
            v = value.get();
        }
        return v;
    }

    @Benchmark
    public long roundTrip(Pair p) {
        long spinNanos = TimeUnit.MICROSECONDS.toNanos(p.spinMicros);
        long ask = p.asked + 1;
        p.asked = ask;
        LockSupport.unpark(p.partner);
        long a;
        while ((a = awaitChange(() -> p.answered, ask - 1, spinNanos)) != ask) {
            // spurious wake-up: wait again
        }
        return a;
    }

    @Benchmark
    public long poolHandOff(Pair p) {
        long ask = ++p.pooled;
        p.pool.execute(() -> {
            p.poolAnswered = ask;
            LockSupport.unpark(p.caller);
        });
        while (p.poolAnswered != ask) {
            LockSupport.park();
        }
        return ask;
    }
}
