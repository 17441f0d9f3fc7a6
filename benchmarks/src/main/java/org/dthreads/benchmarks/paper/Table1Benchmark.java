package org.dthreads.benchmarks.paper;

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
 * The paper's Table 1: the "universal extra argument" technique (every method takes one more
 * argument, the thread identity, as in Brakes) against dthreads' approach, which leaves local calls
 * untouched. The code is the paper's micro-benchmark: each call does one integer operation, two
 * comparisons and two recursive calls, with 1 to 5 {@code int} parameters; {@code extraN} is the
 * same code passing one more reference argument through every call. A call tree of
 * 2^{@link #depth} - 1 calls per operation.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar 'Table1Benchmark' -f 2 -wi 5 -i 10 -w 1s -r 1s -rf json -rff table1.json
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(2)
@State(Scope.Thread)
public class Table1Benchmark {

    @Param("16")
    public int depth;

    /** The identity the extra-argument technique would pass (never used, as in the paper's measurement). */
    private final Object identity = new Object();

    // ---- dthreads: local calls untouched ----

    static int base1(int d) {
        return d <= 0 ? 1 : (d > 1_000_000 ? 0 : 1 + base1(d - 1) + base1(d - 1));
    }

    static int base2(int d, int a) {
        return d <= 0 ? a : (d > 1_000_000 ? 0 : 1 + base2(d - 1, a) + base2(d - 1, a));
    }

    static int base3(int d, int a, int b) {
        return d <= 0 ? a + b : (d > 1_000_000 ? 0 : 1 + base3(d - 1, a, b) + base3(d - 1, a, b));
    }

    static int base4(int d, int a, int b, int c) {
        return d <= 0 ? a + b + c : (d > 1_000_000 ? 0 : 1 + base4(d - 1, a, b, c) + base4(d - 1, a, b, c));
    }

    static int base5(int d, int a, int b, int c, int e) {
        return d <= 0 ? a + b + c + e : (d > 1_000_000 ? 0 : 1 + base5(d - 1, a, b, c, e) + base5(d - 1, a, b, c, e));
    }

    // ---- the universal extra argument ----

    static int extra1(int d, Object id) {
        return d <= 0 ? 1 : (d > 1_000_000 ? 0 : 1 + extra1(d - 1, id) + extra1(d - 1, id));
    }

    static int extra2(int d, int a, Object id) {
        return d <= 0 ? a : (d > 1_000_000 ? 0 : 1 + extra2(d - 1, a, id) + extra2(d - 1, a, id));
    }

    static int extra3(int d, int a, int b, Object id) {
        return d <= 0 ? a + b : (d > 1_000_000 ? 0 : 1 + extra3(d - 1, a, b, id) + extra3(d - 1, a, b, id));
    }

    static int extra4(int d, int a, int b, int c, Object id) {
        return d <= 0 ? a + b + c : (d > 1_000_000 ? 0 : 1 + extra4(d - 1, a, b, c, id) + extra4(d - 1, a, b, c, id));
    }

    static int extra5(int d, int a, int b, int c, int e, Object id) {
        return d <= 0 ? a + b + c + e
                : (d > 1_000_000 ? 0 : 1 + extra5(d - 1, a, b, c, e, id) + extra5(d - 1, a, b, c, e, id));
    }

    @Benchmark
    public int params1Base() {
        return base1(depth);
    }

    @Benchmark
    public int params1Extra() {
        return extra1(depth, identity);
    }

    @Benchmark
    public int params2Base() {
        return base2(depth, 1);
    }

    @Benchmark
    public int params2Extra() {
        return extra2(depth, 1, identity);
    }

    @Benchmark
    public int params3Base() {
        return base3(depth, 1, 2);
    }

    @Benchmark
    public int params3Extra() {
        return extra3(depth, 1, 2, identity);
    }

    @Benchmark
    public int params4Base() {
        return base4(depth, 1, 2, 3);
    }

    @Benchmark
    public int params4Extra() {
        return extra4(depth, 1, 2, 3, identity);
    }

    @Benchmark
    public int params5Base() {
        return base5(depth, 1, 2, 3, 4);
    }

    @Benchmark
    public int params5Extra() {
        return extra5(depth, 1, 2, 3, 4, identity);
    }
}
