package org.dthreads.benchmarks.monitor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What one lock-and-unlock's writes to a monitor slot cost by themselves, without the runtime (issue 16, thin locks):
 * a reference CASed into a field of an object and back to null, as a thin lock does, through a {@code static final}
 * {@link VarHandle} (a constant to the JIT) and through one the JIT cannot treat as a constant (the runtime's per-class
 * handles come from a {@code ClassValue}), and the same pair as plain release stores; objects from a pool visited in a
 * shuffled order. Run with the default collector (G1) and with {@code -XX:+UseParallelGC}: G1's post-write barrier
 * on a reference stored into an object of another region is the difference.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class SlotStoreCost {
    static final class Slotted {
        Object slot;
    }

    private static final VarHandle CONSTANT;
    private static final Object TOKEN = new Object();

    static {
        try {
            CONSTANT = MethodHandles.lookup().findVarHandle(Slotted.class, "slot", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Param({"1000", "1000000"})
    int pool;

    ShuffledPool<Slotted> objects;
    /** Not final, so the JIT cannot fold it: the runtime's handles are reached this way. */
    VarHandle nonConstant;

    @Setup
    public void fill() {
        objects = new ShuffledPool<>(pool, Slotted::new, Slotted[]::new);
        nonConstant = CONSTANT;
    }

    private Slotted nextObject() {
        return objects.next();
    }

    @Benchmark
    public boolean casThroughConstantHandle() {
        Slotted o = nextObject();
        return CONSTANT.compareAndSet(o, (Object) null, TOKEN) && CONSTANT.compareAndSet(o, TOKEN, (Object) null);
    }

    @Benchmark
    public boolean casThroughNonConstantHandle() {
        Slotted o = nextObject();
        VarHandle h = nonConstant;
        return h.compareAndSet(o, (Object) null, TOKEN) && h.compareAndSet(o, TOKEN, (Object) null);
    }

    @Benchmark
    public Object releaseStores() {
        Slotted o = nextObject();
        CONSTANT.setRelease(o, TOKEN);
        CONSTANT.setRelease(o, (Object) null);
        return o;
    }

    @Benchmark
    public Object nativeLock() {
        Slotted o = nextObject();
        synchronized (o) {
            return o;
        }
    }
}
