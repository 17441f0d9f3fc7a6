package org.dthreads.monitor.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.function.Function;

/**
 * The monitor slot: a field the rewriter adds to the classes it rewrites, holding the object's
 * {@link Monitor}, so the monitor of such an object needs no {@link MonitorTable} entry and dies with its
 * object (issue 16: the table's strong bindings kept short-lived locked objects alive through a collection).
 *
 * <h2>The field</h2>
 * {@code private transient Object $dthreads$monitor} (synthetic when the rewriter adds it; see
 * {@code SlotFieldAdder} in the rewriter for which classes get one and why it changes neither serialization
 * nor what reflection-based libraries see). A class hierarchy may declare it at several levels (the rewriter
 * works one class at a time and does not know whether a superclass got one): the <em>topmost</em> declaration
 * in the superclass chain is the object's slot, the others stay null. Its type is {@code Object} so the
 * field means nothing to a second copy of monitor-lib in another class loader.
 *
 * <h2>What guards what</h2>
 * Until its first contention (or wait, take-over, lease) a slot holds at most a {@link ThinLock}: the thin state,
 * changed by CAS, whose class comment is the design of that part. A slot goes to the object's monitor once, by a
 * CAS ({@link #install}) from null or from a thin value (an <em>inflation</em>); it is never cleared (slot
 * monitors are never retired: nothing but the object refers to them, see {@link MonitorTable}). Readers use an
 * acquire read, so a monitor seen in a slot is fully constructed, {@link Monitor#slotOwner} included. A slot
 * copied with its object ({@code Object.clone}, a library copying fields) holds the original's monitor: its
 * {@code slotOwner} is not the object, so it counts as empty and the first install replaces it (CAS from the
 * copied value), so two objects never share a monitor. The per-class {@link Slot}s (the field's
 * {@link VarHandle} and offset) live in a {@link ClassValue}: computed once per class, no lock on the lookup path.
 *
 * <h2>Who uses it</h2>
 * {@link MonitorTable#get}, {@link MonitorTable#getOrCreate} and {@link MonitorRuntime#enter} look here first,
 * so every path (enter/exit, wait/notify/holdsLock, remote leases, lost exits) finds the same monitor for a
 * slotted object. A slot monitor is in no table, so diagnostics ({@code MonitorDump}, the wait-for graph, the
 * fault probes) find it through the list of the thread that holds it ({@link HeldSlotMonitors}) or, if it is
 * contended, waited on or held by a remote lease, through {@link BusySlotMonitors}.
 *
 * <p>On by default; {@code -Ddthreads.monitor.slots=false} turns slots off at run time and in the rewriter
 * (which then adds no field); {@code -Ddthreads.monitor.thin=false} keeps the slots but installs a monitor at the
 * first lock. See {@code docs/benchmarks.md}, "Monitor slot" and "Thin locks".
 */
final class MonitorSlots {
    /** The field's name; the rewriter's {@code SlotFieldAdder.NAME} is the same (a test checks). */
    static final String FIELD_NAME = "$dthreads$monitor";
    static final boolean ENABLED = enabled("dthreads.monitor.slots");
    static final boolean THIN = ENABLED && enabled("dthreads.monitor.thin");

    /** A class's slot, or {@link #NONE}: {@link ClassValue} has no "absent" value. */
    private static final Slot NONE = new Slot(null, -1);

    private static final ClassValue<Slot> SLOTS = new ClassValue<>() {
        @Override
        protected Slot computeValue(Class<?> type) {
            Slot s = ENABLED ? topmostSlot(type) : null;
            return s == null ? NONE : s;
        }
    };

    private MonitorSlots() {}

    /** {@code key}'s slot, or null if its class has none (then the table holds its monitor). */
    static Slot slotOf(Object key) {
        Class<?> type = key.getClass();
        // a plain Object (the common "private final Object lock") never has a slot: no class-value look-up
        return type == Object.class || type == Class.class ? null : present(SLOTS.get(type));
    }

    private static Slot present(Slot s) {
        return s == NONE ? null : s;
    }

    /** {@code key}'s slot if its monitor may be thin ({@link ThinLock}), else null. */
    static Slot thinSlotOf(Object key) {
        return THIN ? slotOf(key) : null;
    }

    /**
     * The monitor in {@code key}'s slot, or null if nobody holds or ever contended it (an empty slot, a copied
     * value). A thin value is inflated first: the callers (exit and wait of a hold that is not thin any more, notify
     * for another actor, lost exits) need the monitor.
     */
    static Monitor get(Slot slot, Object key, Function<Object, Monitor> factory) {
        Object v = slot.getAcquire(key);
        if (v instanceof ThinLock) {
            return install(slot, key, factory);
        }
        return v instanceof Monitor m && m.slotOwner == key ? resolved(m, key) : null;
    }

    /**
     * For diagnostics: the thin value in {@code key}'s slot (not checked for a copy), or its monitor, or null;
     * changes nothing but finishing a pending inflation.
     */
    static Object current(Slot slot, Object key) {
        Object v = slot.getAcquire(key);
        if (v instanceof Monitor m) {
            return m.slotOwner == key ? resolved(m, key) : null;
        }
        return v;
    }

    /** The thin value in {@code key}'s slot, or null if it holds none (empty, inflated); not checked for a copy. */
    static ThinLock thinValue(Slot slot, Object key) {
        return slot.getAcquire(key) instanceof ThinLock t ? t : null;
    }

    /**
     * The monitor in {@code key}'s slot, installed first if the slot is empty, holds a thin value (inflated: see
     * {@link Monitor#resolveInflation}) or holds another object's monitor (copied with the object). {@code factory}
     * is called outside any lock; a racing install may win, and its monitor is then returned and the one made here
     * dropped.
     */
    static Monitor install(Slot slot, Object key, Function<Object, Monitor> factory) {
        Object seen = slot.getAcquire(key);
        while (true) {
            if (seen instanceof Monitor m && m.slotOwner == key) {
                return resolved(m, key);
            }
            Monitor made = factory.apply(key);
            made.slotOwner = key;
            if (seen instanceof ThinLock t) {
                made.prepareInflation(t);
            }
            Object witness = slot.compareAndExchange(key, seen, (Object) made);
            if (witness == seen) {
                return resolved(made, key);
            }
            seen = witness;
        }
    }

    private static Monitor resolved(Monitor m, Object key) {
        m.resolveInflation(key);
        return m;
    }

    /**
     * One class's slot: how the runtime reads and CASes it. Through the field's offset and {@code sun.misc.Unsafe}
     * where it may be used ({@link #OFFSETS}), else through the {@link VarHandle}. Measured (issue 16,
     * {@code MonitorSlotConstant}, 8 slotted classes called megamorphically): a CAS pair through a handle taken from a
     * {@link ClassValue} costs 29 ns, through the offset from the same {@link ClassValue} 19 ns, the same as through a
     * {@code static final} handle (20 ns): a handle the JIT cannot fold runs its generic guards and an out-of-line
     * call per access. A constant handle in the rewritten class does not help: the runtime's entry points are too
     * large to be inlined into each site, so the handle reaches the CAS as a parameter again. The offset is only
     * used with an object of the class it was computed for ({@link #slotOf} takes it from the object's class), where
     * the field is, so no type check is needed.
     */
    static final class Slot {
        final VarHandle handle;
        /** The field's offset, or -1: use {@link #handle}. */
        private final long offset;

        Slot(VarHandle handle, long offset) {
            this.handle = handle;
            this.offset = offset;
        }

        /** Whether this slot is reached through its offset (for tests). */
        boolean usesOffset() {
            return offset >= 0;
        }

        /** The same field through its {@link VarHandle} only (for tests). */
        Slot throughHandle() {
            return new Slot(handle, -1);
        }

        Object getAcquire(Object key) {
            return offset >= 0 ? OFFSETS.getObjectVolatile(key, offset) : handle.getAcquire(key); // volatile: stronger
        }

        Object getVolatile(Object key) {
            return offset >= 0 ? OFFSETS.getObjectVolatile(key, offset) : handle.getVolatile(key);
        }

        /** For tests: what a field copy (reflection, a serializer) does. */
        void setVolatile(Object key, Object value) {
            if (offset >= 0) {
                OFFSETS.putObjectVolatile(key, offset, value);
            } else {
                handle.setVolatile(key, value);
            }
        }

        boolean compareAndSet(Object key, Object expected, Object value) {
            return offset >= 0 ? OFFSETS.compareAndSwapObject(key, offset, expected, value)
                    : handle.compareAndSet(key, expected, value);
        }

        /** The value witnessed: {@code expected} if the CAS happened (as {@link VarHandle#compareAndExchange}). */
        Object compareAndExchange(Object key, Object expected, Object value) {
            if (offset < 0) {
                return handle.compareAndExchange(key, expected, value);
            }
            while (true) {
                if (OFFSETS.compareAndSwapObject(key, offset, expected, value)) {
                    return expected;
                }
                Object witness = OFFSETS.getObjectVolatile(key, offset);
                if (witness != expected) {
                    return witness;
                }
                // it went back to expected meanwhile: try again, as a failed strong CAS must have seen another value
            }
        }
    }

    /**
     * {@code sun.misc.Unsafe} for the slots' offsets, or null: then every slot goes through its {@link VarHandle}.
     * Null from Java 23 on (its memory-access methods are deprecated for removal there, and Java 24 warns on first
     * use: JEP 471, 498), with {@code -Ddthreads.monitor.slotOffsets=false}, or if it cannot be had.
     */
    @SuppressWarnings("removal")
    private static final sun.misc.Unsafe OFFSETS = loadUnsafe();

    private static sun.misc.Unsafe loadUnsafe() {
        if (Runtime.version().feature() >= 23 || !enabled("dthreads.monitor.slotOffsets")) {
            return null;
        }
        try {
            Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return (sun.misc.Unsafe) f.get(null);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    private static long offsetOf(Field field) {
        if (OFFSETS == null) {
            return -1;
        }
        try {
            return OFFSETS.objectFieldOffset(field); // refuses hidden classes and records: the handle then
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private static Slot topmostSlot(Class<?> type) {
        if (type.isArray() || type.isInterface() || type.isPrimitive()) {
            return null;
        }
        Field topmost = null;
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            Field f = slotField(c);
            if (f != null) {
                topmost = f;
            }
        }
        if (topmost == null || MonitorModes.isStubType(type)) {
            return null; // a stub's monitor stays in the table, weakly bound (see MonitorTable)
        }
        try {
            VarHandle h = MethodHandles.privateLookupIn(topmost.getDeclaringClass(), MethodHandles.lookup())
                    .unreflectVarHandle(topmost);
            return new Slot(h, offsetOf(topmost));
        } catch (IllegalAccessException | RuntimeException e) {
            MonitorRuntime.LOG.warn("slot-inaccessible:" + type.getName(), "dthreads: the monitor slot of " + type.getName()
                    + " cannot be reached (" + e + "); its monitors use the table");
            return null;
        }
    }

    private static Field slotField(Class<?> c) {
        try {
            Field f = c.getDeclaredField(FIELD_NAME);
            int m = f.getModifiers();
            boolean shape = Modifier.isPrivate(m) && Modifier.isTransient(m) && !Modifier.isStatic(m)
                    && f.getType() == Object.class;
            return shape ? f : null;
        } catch (NoSuchFieldException | LinkageError | SecurityException e) {
            return null;
        }
    }

    private static boolean enabled(String property) {
        try {
            return !"false".equalsIgnoreCase(System.getProperty(property));
        } catch (SecurityException e) {
            return true;
        }
    }
}
