package org.dthreads.benchmarks.agent;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The macro benchmark: {@link H2Workload} (4 threads, inserts, updates and queries on an in-memory
 * H2) per operation, without ({@link Plain}) and with ({@link WithAgent}) the dthreads agent, in
 * one JMH run. The ratio WithAgent / Plain is the agent's cost on a real synchronized-heavy library.
 * The harness and dthreads itself are not rewritten; H2 is.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
public abstract class H2Macro {

    @Param("4")
    public int threads;

    @Param("500")
    public int rowsPerThread;

    @Benchmark
    public long workload() throws Exception {
        return H2Workload.run(threads, rowsPerThread);
    }

    @Fork(value = 1)
    public static class Plain extends H2Macro {}

    @Fork(value = 1, jvmArgsAppend = {"-javaagent:dthreads-agent/target/dthreads-agent.jar",
            "-Ddthreads.exclude=org.openjdk.jmh."})
    public static class WithAgent extends H2Macro {}
}
