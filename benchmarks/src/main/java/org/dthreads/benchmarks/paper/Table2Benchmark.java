package org.dthreads.benchmarks.paper;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.dthreads.benchmarks.paper.table2.ExtraArgumentTransformer;
import org.dthreads.benchmarks.paper.table2.LibraryVariants;
import org.dthreads.benchmarks.paper.table2.LibraryVariants.Library;
import org.dthreads.benchmarks.paper.table2.LibraryVariants.Variant;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The paper's Table 2: the "universal extra argument" technique applied to a whole real call-heavy
 * library, against the same library untouched and as dthreads rewrites it (monitor operations only:
 * local calls untouched). Libraries from Maven Central ({@link Library}): Mozilla Rhino 1.7.15
 * running a JavaScript program in its interpreter, and XZ for Java 1.9 compressing and
 * decompressing 256 KiB. Each build is defined from byte arrays made at set-up
 * ({@link LibraryVariants}, {@link ExtraArgumentTransformer}) in its own class loader; set-up
 * verifies every transformed class with ASM's {@code CheckClassAdapter} and fails the benchmark if
 * the build's result differs from the original library's.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar Table2 -f 3 -wi 5 -w 2s -i 10 -r 1s -rf json -rff docs/results/table2.json
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 10, time = 1)
@Fork(2)
public class Table2Benchmark {

    /** One build of one library, ready to run. */
    @State(Scope.Thread)
    public abstract static class Build {
        @Param({"RHINO", "XZ"})
        public String library;

        LongSupplier workload;

        abstract Variant variant();

        @Setup(Level.Trial)
        public void setUp() {
            Library lib = Library.valueOf(library);
            LibraryVariants.Build build = LibraryVariants.build(lib, variant());
            List<String> problems = variant() == Variant.ORIGINAL ? List.of() : build.verify();
            if (!problems.isEmpty()) {
                throw new IllegalStateException(lib + " " + variant() + ": " + problems.size()
                        + " classes fail verification, first: " + problems.get(0));
            }
            long expected = LibraryVariants.build(lib, Variant.ORIGINAL).newWorkload().getAsLong();
            workload = build.newWorkload();
            long actual = workload.getAsLong();
            if (actual != expected) {
                throw new IllegalStateException(lib + " " + variant() + " computes " + actual + ", the original " + expected);
            }
            System.out.println("\n" + lib + " " + variant() + ": " + build.report());
        }
    }

    public static class Original extends Build {
        @Override
        Variant variant() {
            return Variant.ORIGINAL;
        }
    }

    public static class ExtraArgument extends Build {
        @Override
        Variant variant() {
            return Variant.EXTRA_ARGUMENT;
        }
    }

    public static class Dthreads extends Build {
        @Override
        Variant variant() {
            return Variant.DTHREADS;
        }
    }

    /** The library as published. */
    @Benchmark
    public long original(Original build) {
        return build.workload.getAsLong();
    }

    /** Every library method takes one more {@code long}, passed along by every library call. */
    @Benchmark
    public long extraArgument(ExtraArgument build) {
        return build.workload.getAsLong();
    }

    /** dthreads' monitor rewriting of the library: calls untouched. */
    @Benchmark
    public long dthreads(Dthreads build) {
        return build.workload.getAsLong();
    }
}
