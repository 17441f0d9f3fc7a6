package org.dthreads.benchmarks.monitor;

import java.util.concurrent.TimeUnit;
import org.dthreads.ClassScope;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.monitor.spi.OutgoingCalls;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * What every outgoing remote call pays for being marked suspended ({@code OutgoingCalls.begin}/{@code end},
 * which both adapters call around each call): time and, with {@code -prof gc}, bytes allocated per call. On
 * the application's own thread, and on a thread bound to a caller's class (a server thread calling on along
 * a chain). Issue 22 found this pair to be a third of dthreads' share of an empty JacORB call.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar OutgoingCallMarks -prof gc
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Threads(1)
@State(Scope.Thread)
public class OutgoingCallMarks {
    @Benchmark
    public void ownThread() {
        OutgoingCalls.begin();
        OutgoingCalls.end();
    }

    @Benchmark
    public void nested() {
        OutgoingCalls.begin();
        OutgoingCalls.begin();
        OutgoingCalls.end();
        OutgoingCalls.end();
    }

    /** A server thread serving a call of another site's class, calling on: bound for each call. */
    @Benchmark
    public void boundThread() {
        try (ClassScope s = DThreads.bind(ThreadClass.of(0x0B0B, 7))) {
            OutgoingCalls.begin();
            OutgoingCalls.end();
        }
    }
}
