package org.dthreads.benchmarks.monitor;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.dthreads.monitor.Monitors;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * One thread, one plain {@code Object} lock, in the shape the rewriter gives a {@code synchronized} block
 * whose target it cannot prove emulated: the mode test ({@link Monitors#isEmulated}), then the emulated
 * enter + increment + exit. {@code marks}: {@code none}, no object was ever marked native (issue 21's
 * marks cost one null check); {@code 1000}, a thousand other objects are marked (a parallel-capable class
 * loader that handed out its per-name locks), so the mode test also hashes the lock and reads a filter bit.
 * On a build without {@code Monitors.keepNative} (before issue 21) the parameter changes nothing.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Threads(1)
@State(Scope.Thread)
public class MonitorRewrittenBlock {
    @Param({"none", "1000"})
    public String marks;

    final Object lock = new Object();
    final List<Object> marked = new ArrayList<>();
    int counter;

    @Setup(Level.Trial)
    public void mark() throws Exception {
        if (marks.equals("none")) {
            return;
        }
        Method keepNative;
        try {
            keepNative = Monitors.class.getMethod("keepNative", Object.class);
        } catch (NoSuchMethodException e) {
            return; // a build before the marks
        }
        for (int i = 0; i < Integer.parseInt(marks); i++) {
            Object o = new Object();
            marked.add(o);
            keepNative.invoke(null, o);
        }
    }

    @Benchmark
    public int rewrittenBlock() {
        if (Monitors.isEmulated(lock)) {
            Monitors.enter(lock);
            try {
                return ++counter;
            } finally {
                Monitors.exit(lock);
            }
        }
        synchronized (lock) {
            return ++counter;
        }
    }

    @Benchmark
    public boolean modeTest() {
        return Monitors.isEmulated(lock);
    }
}
