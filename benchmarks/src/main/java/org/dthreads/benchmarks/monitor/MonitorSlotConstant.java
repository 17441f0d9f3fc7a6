package org.dthreads.benchmarks.monitor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.dthreads.monitor.Monitors;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * Issue 16, the cost of reaching the monitor slot through a {@link VarHandle} the JIT cannot fold (the runtime's
 * per-class slots come from a {@code ClassValue}): synchronized methods of 8 slotted classes (as the rewriter leaves
 * them, the slot written by hand since JMH runs without the agent), called megamorphically on a shuffled pool of
 * their objects, as real code (Derby) calls them. {@code nativeSync}: the JVM's monitor; {@code emulated}: the
 * rewritten shape ({@code Monitors.enter(this)} ... {@code Monitors.exit(this)}); run it with
 * {@code -Ddthreads.monitor.slotOffsets=false} for the slot reached through its handle. The {@code cas*} variants:
 * one thin enter's and exit's CAS pair alone, through a handle from a {@code ClassValue}, through the field's offset
 * from a {@code ClassValue} ({@code sun.misc.Unsafe}), through a per-class accessor object (as a hidden class per
 * slotted class would be) and through the class's own {@code static final} handle.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Threads(1)
@State(Scope.Thread)
public class MonitorSlotConstant {

    /** The three shapes of one synchronized method. */
    interface Op {
        int nativeSync();

        int emulated();

        /** The raw slot CAS pair (a thin enter and exit without the runtime) through the class's own constant. */
        boolean casOwnConstant();
    }

    private static final Object TOKEN = new Object();

    /** Per class, the slot's VarHandle and Unsafe offset, reached as the runtime reaches them (not constant). */
    static final ClassValue<VarHandle> HANDLES = new ClassValue<>() {
        @Override
        protected VarHandle computeValue(Class<?> type) {
            try {
                return MethodHandles.privateLookupIn(type, MethodHandles.lookup())
                        .findVarHandle(type, "$dthreads$monitor", Object.class);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
    };

    /** A per-class accessor with the class's handle as a constant (as a hidden class per slot class could be). */
    interface SlotAccess {
        boolean cas(Object o, Object expected, Object value);
    }

    static final ClassValue<SlotAccess> ACCESSORS = new ClassValue<>() {
        @Override
        protected SlotAccess computeValue(Class<?> type) {
            try {
                return (SlotAccess) type.getDeclaredField("ACCESS").get(null);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
    };

    static final sun.misc.Unsafe U;

    static {
        try {
            java.lang.reflect.Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            U = (sun.misc.Unsafe) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    static final ClassValue<long[]> OFFSETS = new ClassValue<>() {
        @Override
        protected long[] computeValue(Class<?> type) {
            try {
                return new long[] {U.objectFieldOffset(type.getDeclaredField("$dthreads$monitor"))};
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
    };

    @Param({"1000"})
    int pool;

    ShuffledPool<Op> objects;

    @Setup
    public void fillPool() {
        List<Supplier<Op>> kinds = List.of(Lock0::new, Lock1::new, Lock2::new, Lock3::new, Lock4::new, Lock5::new, Lock6::new, Lock7::new);
        int[] i = {0};
        objects = new ShuffledPool<>(pool, () -> kinds.get(i[0]++ % kinds.size()).get(), Op[]::new);
    }

    @Benchmark
    public int nativeSync() {
        return objects.next().nativeSync();
    }

    @Benchmark
    public int emulated() {
        return objects.next().emulated();
    }

    @Benchmark
    public boolean casClassValueHandle() {
        Object o = objects.next();
        VarHandle h = HANDLES.get(o.getClass());
        return h.compareAndSet(o, (Object) null, TOKEN) && h.compareAndSet(o, TOKEN, (Object) null);
    }

    @Benchmark
    public boolean casClassValueUnsafeOffset() {
        Object o = objects.next();
        long off = OFFSETS.get(o.getClass())[0];
        return U.compareAndSwapObject(o, off, null, TOKEN) && U.compareAndSwapObject(o, off, TOKEN, null);
    }

    @Benchmark
    public boolean casClassValueAccessor() {
        Object o = objects.next();
        SlotAccess a = ACCESSORS.get(o.getClass());
        return a.cas(o, null, TOKEN) && a.cas(o, TOKEN, null);
    }

    @Benchmark
    public boolean casOwnConstant() {
        return objects.next().casOwnConstant();
    }

    /** Rewritten class 0: the slot the rewriter adds, and the constant handle the prototype would add. */
    static final class Lock0 implements Op {
        private static final VarHandle OWN = HANDLES.get(Lock0.class);
        static final SlotAccess ACCESS = new Access0();

        static final class Access0 implements SlotAccess {
            @Override
            public boolean cas(Object o, Object expected, Object value) {
                return OWN.compareAndSet((Lock0) o, expected, value);
            }
        }
        @SuppressWarnings("unused") // written by the monitor runtime through a VarHandle
        private transient Object $dthreads$monitor;
        int count;

        @Override
        public synchronized int nativeSync() {
            return ++count;
        }

        @Override
        public int emulated() {
            Monitors.enter(this);
            try {
                return ++count;
            } finally {
                Monitors.exit(this);
            }
        }

        @Override
        public boolean casOwnConstant() {
            return OWN.compareAndSet(this, (Object) null, TOKEN) && OWN.compareAndSet(this, TOKEN, (Object) null);
        }

    }

    /** Rewritten class 1: the slot the rewriter adds, and the constant handle the prototype would add. */
    static final class Lock1 implements Op {
        private static final VarHandle OWN = HANDLES.get(Lock1.class);
        static final SlotAccess ACCESS = new Access1();

        static final class Access1 implements SlotAccess {
            @Override
            public boolean cas(Object o, Object expected, Object value) {
                return OWN.compareAndSet((Lock1) o, expected, value);
            }
        }
        @SuppressWarnings("unused") // written by the monitor runtime through a VarHandle
        private transient Object $dthreads$monitor;
        int count;

        @Override
        public synchronized int nativeSync() {
            return ++count;
        }

        @Override
        public int emulated() {
            Monitors.enter(this);
            try {
                return ++count;
            } finally {
                Monitors.exit(this);
            }
        }

        @Override
        public boolean casOwnConstant() {
            return OWN.compareAndSet(this, (Object) null, TOKEN) && OWN.compareAndSet(this, TOKEN, (Object) null);
        }

    }

    /** Rewritten class 2: the slot the rewriter adds, and the constant handle the prototype would add. */
    static final class Lock2 implements Op {
        private static final VarHandle OWN = HANDLES.get(Lock2.class);
        static final SlotAccess ACCESS = new Access2();

        static final class Access2 implements SlotAccess {
            @Override
            public boolean cas(Object o, Object expected, Object value) {
                return OWN.compareAndSet((Lock2) o, expected, value);
            }
        }
        @SuppressWarnings("unused") // written by the monitor runtime through a VarHandle
        private transient Object $dthreads$monitor;
        int count;

        @Override
        public synchronized int nativeSync() {
            return ++count;
        }

        @Override
        public int emulated() {
            Monitors.enter(this);
            try {
                return ++count;
            } finally {
                Monitors.exit(this);
            }
        }

        @Override
        public boolean casOwnConstant() {
            return OWN.compareAndSet(this, (Object) null, TOKEN) && OWN.compareAndSet(this, TOKEN, (Object) null);
        }

    }

    /** Rewritten class 3: the slot the rewriter adds, and the constant handle the prototype would add. */
    static final class Lock3 implements Op {
        private static final VarHandle OWN = HANDLES.get(Lock3.class);
        static final SlotAccess ACCESS = new Access3();

        static final class Access3 implements SlotAccess {
            @Override
            public boolean cas(Object o, Object expected, Object value) {
                return OWN.compareAndSet((Lock3) o, expected, value);
            }
        }
        @SuppressWarnings("unused") // written by the monitor runtime through a VarHandle
        private transient Object $dthreads$monitor;
        int count;

        @Override
        public synchronized int nativeSync() {
            return ++count;
        }

        @Override
        public int emulated() {
            Monitors.enter(this);
            try {
                return ++count;
            } finally {
                Monitors.exit(this);
            }
        }

        @Override
        public boolean casOwnConstant() {
            return OWN.compareAndSet(this, (Object) null, TOKEN) && OWN.compareAndSet(this, TOKEN, (Object) null);
        }

    }

    /** Rewritten class 4: the slot the rewriter adds, and the constant handle the prototype would add. */
    static final class Lock4 implements Op {
        private static final VarHandle OWN = HANDLES.get(Lock4.class);
        static final SlotAccess ACCESS = new Access4();

        static final class Access4 implements SlotAccess {
            @Override
            public boolean cas(Object o, Object expected, Object value) {
                return OWN.compareAndSet((Lock4) o, expected, value);
            }
        }
        @SuppressWarnings("unused") // written by the monitor runtime through a VarHandle
        private transient Object $dthreads$monitor;
        int count;

        @Override
        public synchronized int nativeSync() {
            return ++count;
        }

        @Override
        public int emulated() {
            Monitors.enter(this);
            try {
                return ++count;
            } finally {
                Monitors.exit(this);
            }
        }

        @Override
        public boolean casOwnConstant() {
            return OWN.compareAndSet(this, (Object) null, TOKEN) && OWN.compareAndSet(this, TOKEN, (Object) null);
        }

    }

    /** Rewritten class 5: the slot the rewriter adds, and the constant handle the prototype would add. */
    static final class Lock5 implements Op {
        private static final VarHandle OWN = HANDLES.get(Lock5.class);
        static final SlotAccess ACCESS = new Access5();

        static final class Access5 implements SlotAccess {
            @Override
            public boolean cas(Object o, Object expected, Object value) {
                return OWN.compareAndSet((Lock5) o, expected, value);
            }
        }
        @SuppressWarnings("unused") // written by the monitor runtime through a VarHandle
        private transient Object $dthreads$monitor;
        int count;

        @Override
        public synchronized int nativeSync() {
            return ++count;
        }

        @Override
        public int emulated() {
            Monitors.enter(this);
            try {
                return ++count;
            } finally {
                Monitors.exit(this);
            }
        }

        @Override
        public boolean casOwnConstant() {
            return OWN.compareAndSet(this, (Object) null, TOKEN) && OWN.compareAndSet(this, TOKEN, (Object) null);
        }

    }

    /** Rewritten class 6: the slot the rewriter adds, and the constant handle the prototype would add. */
    static final class Lock6 implements Op {
        private static final VarHandle OWN = HANDLES.get(Lock6.class);
        static final SlotAccess ACCESS = new Access6();

        static final class Access6 implements SlotAccess {
            @Override
            public boolean cas(Object o, Object expected, Object value) {
                return OWN.compareAndSet((Lock6) o, expected, value);
            }
        }
        @SuppressWarnings("unused") // written by the monitor runtime through a VarHandle
        private transient Object $dthreads$monitor;
        int count;

        @Override
        public synchronized int nativeSync() {
            return ++count;
        }

        @Override
        public int emulated() {
            Monitors.enter(this);
            try {
                return ++count;
            } finally {
                Monitors.exit(this);
            }
        }

        @Override
        public boolean casOwnConstant() {
            return OWN.compareAndSet(this, (Object) null, TOKEN) && OWN.compareAndSet(this, TOKEN, (Object) null);
        }

    }

    /** Rewritten class 7: the slot the rewriter adds, and the constant handle the prototype would add. */
    static final class Lock7 implements Op {
        private static final VarHandle OWN = HANDLES.get(Lock7.class);
        static final SlotAccess ACCESS = new Access7();

        static final class Access7 implements SlotAccess {
            @Override
            public boolean cas(Object o, Object expected, Object value) {
                return OWN.compareAndSet((Lock7) o, expected, value);
            }
        }
        @SuppressWarnings("unused") // written by the monitor runtime through a VarHandle
        private transient Object $dthreads$monitor;
        int count;

        @Override
        public synchronized int nativeSync() {
            return ++count;
        }

        @Override
        public int emulated() {
            Monitors.enter(this);
            try {
                return ++count;
            } finally {
                Monitors.exit(this);
            }
        }

        @Override
        public boolean casOwnConstant() {
            return OWN.compareAndSet(this, (Object) null, TOKEN) && OWN.compareAndSet(this, TOKEN, (Object) null);
        }

    }
}
