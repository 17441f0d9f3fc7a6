package org.dthreads.benchmarks.realworld;

import java.util.List;
import org.dthreads.benchmarks.agent.H2Workload;
import org.dthreads.benchmarks.paper.table2.RhinoWorkload;
import org.dthreads.benchmarks.paper.table2.XzWorkload;

/**
 * The workloads {@link PairedJvms} runs in separate JVMs, plain and under the agent: each defines one
 * round (returning a digest that must be the same in every JVM), its default size, warm-up and timed
 * rounds, and extra JVM flags.
 */
enum RealWorkload {
    /** Embedded Derby, 4 threads; size: transactions per thread. */
    DERBY(500, 3, 5, List.of()) {
        @Override
        long round(int size) throws Exception {
            return DerbyWorkload.run(4, size);
        }
    },
    /** Embedded H2 ({@link H2Workload}, as H2Macro), 4 threads; size: rows per thread. */
    H2(500, 5, 10, List.of()) {
        @Override
        long round(int size) throws Exception {
            return H2Workload.run(4, size);
        }
    },
    /** Rhino interpreting a script ({@link RhinoWorkload}, Table 2); size: script runs per round. */
    RHINO(10, 30, 10, List.of()) {
        private RhinoWorkload workload;

        @Override
        long round(int size) {
            if (workload == null) {
                workload = new RhinoWorkload();
            }
            long digest = 0;
            for (int i = 0; i < size; i++) {
                digest = digest * 31 + workload.getAsLong();
            }
            return digest;
        }
    },
    /** XZ for Java, LZMA2 round trip of 256 KiB ({@link XzWorkload}, Table 2); size: round trips per round. */
    XZ(5, 20, 10, List.of()) {
        private XzWorkload workload;

        @Override
        long round(int size) {
            if (workload == null) {
                workload = new XzWorkload();
            }
            long digest = 0;
            for (int i = 0; i < size; i++) {
                digest = digest * 31 + workload.getAsLong();
            }
            return digest;
        }
    },
    /** Start-up: load every class of H2 (one round, no warm-up: the first load is the measure). */
    STARTUP_H2(1, 0, 1, List.of()) {
        @Override
        long round(int size) throws Exception {
            return ClassLoading.loadAll("org/h2/", org.h2.Driver.class);
        }
    },
    /** Start-up: load every class of Derby (derby, derbyshared, derbytools). */
    STARTUP_DERBY(1, 0, 1, List.of()) {
        @Override
        long round(int size) throws Exception {
            return ClassLoading.loadAll("org/apache/derby/", org.apache.derby.iapi.jdbc.AutoloadedDriver.class,
                    org.apache.derby.shared.common.error.StandardException.class, org.apache.derby.jdbc.EmbeddedDriver.class);
        }
    },
    /** Hot rewritten monitor code ({@link org.dthreads.benchmarks.realworld.app.HotCounter}), 2 threads; size: calls per thread. */
    HOTLOCK(5_000_000, 5, 5, List.of()) {
        @Override
        long round(int size) throws Exception {
            return org.dthreads.benchmarks.realworld.app.HotCounter.run(2, size);
        }
    },
    /** Memory: {@code size} short-lived locked objects in a 64 MB heap, then the retention checks. */
    MEMORY(2_000_000, 0, 1, List.of("-Xmx64m")) {
        @Override
        long round(int size) throws Exception {
            return LockedGarbage.run(size);
        }
    };

    final int defaultSize;
    final int warmupRounds;
    final int timedRounds;
    final List<String> jvmFlags;

    RealWorkload(int defaultSize, int warmupRounds, int timedRounds, List<String> jvmFlags) {
        this.defaultSize = defaultSize;
        this.warmupRounds = warmupRounds;
        this.timedRounds = timedRounds;
        this.jvmFlags = jvmFlags;
    }

    /** One round; the digest must not depend on the JVM, timing or agent. */
    abstract long round(int size) throws Exception;

    static RealWorkload named(String name) {
        return valueOf(name.toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    }
}
