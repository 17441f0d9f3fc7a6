package org.dthreads.monitor.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A concurrent, identity-keyed map from objects to their {@link Monitor}s whose idle entries are retired
 * by a sweep, not by the collector: no {@link java.lang.ref.Reference} per entry, so nothing for the GC to
 * discover and process (that cost dominated with many or short-lived locked objects, see issue 16).
 *
 * <h2>Design</h2>
 * A fixed array of segments, each a chained hash table of immutable {@link Node}s, each pointing to a
 * {@link Binding} (the key, strongly, with its hash and monitor). Keys compare by {@code ==} only.
 * <ul>
 *   <li>Reads are lock-free: a volatile read of the segment's table, an acquire read of the bucket, then a
 *       walk of an immutable chain. Writes (insert, sweep, resize) hold the segment's own lock and publish
 *       rebuilt chains or a new table; readers see either the old or the new one, both valid.</li>
 *   <li>Retirement: a sweep (under the segment lock) drops every binding whose monitor is idle and was not
 *       looked up since the previous sweep ({@link Binding#recent}, a second chance). Dropping first retires
 *       the monitor ({@link Monitor#tryRetire}: its owner becomes a sentinel under its queue lock, only if
 *       free, with nobody queued or inside a wait), then clears {@link Binding#key}. A thread that found the
 *       binding earlier (a racing reader, or its {@link Actor} cache) fails its CAS on the sentinel and looks
 *       up again ({@link #getOrCreate} skips retired monitors under the lock, so it gets the one new monitor
 *       for the key). Retirement is final: a retired monitor is never owned again.</li>
 *   <li>When: before a segment would grow (so a churning segment stays small) and after every collection
 *       (a canary object's {@link Cleaner} action, for the default table), so an object locked once is not
 *       kept alive by its entry for longer than two collections once it is otherwise unreachable.</li>
 *   <li>Objects of classes with a monitor slot ({@link MonitorSlots}) are never bound here: {@link #get} and
 *       {@link #getOrCreate} answer from the slot, so every caller finds the same monitor; it is never
 *       retired and dies with its object. {@link #forEach} adds the slot monitors threads hold
 *       ({@link HeldSlotMonitors}) and those noted as busy ({@link BusySlotMonitors}).</li>
 *   <li>Stubs (remote references) keep a weak binding ({@link Binding#weakKey}): their monitor is never idle
 *       (its owner is a permanent sentinel) and a sweep drops it once the stub is collected. They are rare.</li>
 *   <li>Inserting calls out ({@code new Monitor} reaches transports for a stub, which may lock objects
 *       and so insert into this table): the monitor is made before the segment lock is taken, so no nested
 *       insert can resize the table under an insert that already chose its bucket (issue 15, section 3: two
 *       monitors for one object), and no two segment locks are ever held at once. Two racing inserts of
 *       one key may both make a monitor; the second to lock finds the first's and drops its own.</li>
 * </ul>
 */
final class MonitorTable {
    private static final int DEFAULT_SEGMENT_BITS = 6; // 64 segments, indexed by the top bits of the spread hash
    private static final int INITIAL_CAPACITY = 16;
    private static final Cleaner CANARIES = Cleaner.create(r -> {
        Thread t = new Thread(r, "dthreads-monitor-sweep");
        t.setDaemon(true);
        return t;
    });

    private final int segmentShift;
    private final Segment[] segments;
    private final Function<Object, Monitor> factory;

    MonitorTable() {
        this(DEFAULT_SEGMENT_BITS, Monitor::new, true);
    }

    /** A table of {@code 2^segmentBits} segments (1..16 bits), swept only before it grows; for tests. */
    MonitorTable(int segmentBits) {
        this(segmentBits, Monitor::new, false);
    }

    /** {@code factory} makes a key's monitor (tests hook it); {@code sweepAfterGc} adds a sweep after each collection. */
    MonitorTable(int segmentBits, Function<Object, Monitor> factory, boolean sweepAfterGc) {
        this.segmentShift = 32 - segmentBits;
        this.segments = new Segment[1 << segmentBits];
        this.factory = factory;
        for (int i = 0; i < segments.length; i++) {
            segments[i] = new Segment(this);
        }
        if (sweepAfterGc) {
            armCanary(new WeakReference<>(this));
        }
    }

    /** Registers an unreachable object whose cleaning (after the next collection) sweeps the table and re-arms. */
    private static void armCanary(WeakReference<MonitorTable> tableRef) {
        CANARIES.register(new Object(), () -> {
            MonitorTable table = tableRef.get();
            if (table != null) {
                table.sweep();
                HeldSlotMonitors.pruneDead(); // the per-thread lists of slot monitors: a dead thread's goes too
                Actor.pruneDead(); // and its cached actor
                armCanary(tableRef);
            }
        });
    }

    private static int spread(int identityHash) {
        return identityHash * 0x9E3779B9; // Fibonacci hashing: mixes low bits into the top ones
    }

    private Segment segmentFor(int spread) {
        return segments[spread >>> segmentShift];
    }

    /** The binding of {@code key}, or {@code null} if it has none; its monitor may be retired (check it). */
    Binding find(Object key) {
        int hash = System.identityHashCode(key);
        return segmentFor(spread(hash)).find(key, hash);
    }

    /**
     * The monitor of {@code key}, or {@code null} if it has none; may be retired if a sweep races. For a slotted
     * object ({@link MonitorSlots}) the one in its slot.
     */
    Monitor get(Object key) {
        MonitorSlots.Slot slot = MonitorSlots.slotOf(key);
        if (slot != null) {
            return MonitorSlots.get(slot, key, factory);
        }
        Binding b = find(key);
        return b == null ? null : b.monitor;
    }

    /**
     * The monitor of {@code key}, created if absent (a retired one is replaced). For a slotted object the one
     * in its slot, installed if absent, and noted for diagnostics ({@link BusySlotMonitors}): the callers
     * (remote leases, stubs) are not on the uncontended path.
     */
    Monitor getOrCreate(Object key) {
        MonitorSlots.Slot slot = MonitorSlots.slotOf(key);
        if (slot != null) {
            Monitor m = MonitorSlots.install(slot, key, factory);
            BusySlotMonitors.note(m);
            return m;
        }
        return bind(key).monitor;
    }

    /** The monitor in {@code key}'s slot (installed if empty), or null if its class has no slot. */
    Monitor slotMonitor(Object key) {
        MonitorSlots.Slot slot = MonitorSlots.slotOf(key);
        return slot == null ? null : MonitorSlots.install(slot, key, factory);
    }

    /** {@link #slotMonitor(Object)} for a key whose slot the caller looked up. */
    Monitor slotMonitor(MonitorSlots.Slot slot, Object key) {
        return MonitorSlots.install(slot, key, factory);
    }

    /** {@link #get} for a key whose slot the caller looked up. */
    Monitor slotGet(MonitorSlots.Slot slot, Object key) {
        return MonitorSlots.get(slot, key, factory);
    }

    /**
     * The table binding of {@code key} (never for a slotted object: see {@link #slotMonitor}) with a monitor
     * that was not retired when looked up, created if absent.
     */
    Binding bind(Object key) {
        int hash = System.identityHashCode(key);
        Segment segment = segmentFor(spread(hash));
        Binding b = segment.find(key, hash);
        if (b != null && !b.monitor.isRetired()) {
            if (!b.recent) {
                b.recent = true; // written once per sweep period: hot keys do not share-write a line
            }
            return b;
        }
        return segment.insert(key, hash);
    }

    /** Retires every idle, not recently used monitor; see the class comment. */
    void sweep() {
        for (Segment segment : segments) {
            synchronized (segment) {
                segment.sweepAndRebuild();
            }
        }
    }

    /**
     * Visits every monitor in the table, then the slot monitors held by a thread ({@link HeldSlotMonitors}) or
     * noted as contended, waited on or leased ({@link BusySlotMonitors}), each once; weakly consistent (no
     * lock), for dumps. A thin hold ({@link ThinLock}) is visited as a monitor made for the visit
     * ({@link Monitor#thinView}), installed nowhere: reading diagnostics does not inflate.
     */
    void forEach(Consumer<Monitor> action) {
        forEachBound(action);
        java.util.Set<Monitor> slotted = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        HeldSlotMonitors.forEachList(list -> list.forEach(key -> {
            Monitor m = slotView(key);
            if (m != null) {
                slotted.add(m);
            }
        }));
        BusySlotMonitors.forEach(slotted::add);
        slotted.forEach(action);
    }

    private static Monitor slotView(Object key) {
        MonitorSlots.Slot slot = MonitorSlots.slotOf(key);
        Object v = slot == null ? null : MonitorSlots.current(slot, key);
        if (v instanceof ThinLock t) {
            return ThinLock.isGenuine(t, key) ? Monitor.thinView(key, t) : null;
        }
        return (Monitor) v;
    }

    private void forEachBound(Consumer<Monitor> action) {
        for (Segment segment : segments) {
            Node[] table = segment.table;
            for (int i = 0; i < table.length; i++) {
                for (Node n = Segment.getBucketAcquire(table, i); n != null; n = n.next) {
                    if (n.binding.isLive()) {
                        action.accept(n.binding.monitor);
                    }
                }
            }
        }
    }

    /** Whether two keys land in the same segment and bucket of a fresh table of this shape; for tests. */
    boolean sameFreshBucket(Object a, Object b) {
        int ha = System.identityHashCode(a);
        int hb = System.identityHashCode(b);
        return segmentFor(spread(ha)) == segmentFor(spread(hb)) && (ha & (INITIAL_CAPACITY - 1)) == (hb & (INITIAL_CAPACITY - 1));
    }

    /** Live bindings (not retired, stub not collected); for tests. */
    int size() {
        int n = 0;
        for (Segment segment : segments) {
            synchronized (segment) {
                Node[] t = segment.table;
                for (int i = 0; i < t.length; i++) {
                    for (Node e = t[i]; e != null; e = e.next) {
                        n += e.binding.isLive() ? 1 : 0;
                    }
                }
            }
        }
        return n;
    }

    /**
     * One key's monitor. Shared by every copy of its chain node, so clearing {@link #key} on retirement also
     * disarms an {@link Actor}'s cached reference to it. {@code key} is written (to null) only under the
     * segment lock, after the monitor was retired; racing readers may still see the old value, and then
     * find the monitor retired.
     */
    static final class Binding {
        /** Matches no key: the initial value of an actor's cache. */
        static final Binding NONE = new Binding(null, 0, null, null);

        Object key;
        final WeakReference<Object> weakKey; // stubs only; then key is null
        final int hash;
        final Monitor monitor;
        /**
         * Looked up through the table since the last sweep: a racy hint (a lost update costs one early
         * retirement). False when inserted: a key locked once, then dropped, goes at the next sweep, and a
         * churning segment does not keep (and grow for) everything inserted since its last sweep.
         */
        boolean recent;

        Binding(Object key, int hash, Monitor monitor, WeakReference<Object> weakKey) {
            this.key = key;
            this.hash = hash;
            this.monitor = monitor;
            this.weakKey = weakKey;
        }

        boolean matches(Object k, int h) {
            return key == k ? k != null : hash == h && weakKey != null && weakKey.refersTo(k);
        }

        boolean isLive() {
            return key != null || weakKey != null && !weakKey.refersTo(null);
        }
    }

    /** An immutable chain link. */
    static final class Node {
        final Binding binding;
        final Node next;

        Node(Binding binding, Node next) {
            this.binding = binding;
            this.next = next;
        }
    }

    /** One lock stripe. {@code table} and its buckets are written only under {@code synchronized (this)}. */
    static final class Segment {
        private static final VarHandle BUCKETS = MethodHandles.arrayElementVarHandle(Node[].class);

        private final MonitorTable owner;
        volatile Node[] table = new Node[INITIAL_CAPACITY];
        int count; // bindings in table, guarded by this

        Segment(MonitorTable owner) {
            this.owner = owner;
        }

        static Node getBucketAcquire(Node[] table, int i) {
            return (Node) BUCKETS.getAcquire(table, i);
        }

        private static void setBucketRelease(Node[] table, int i, Node n) {
            BUCKETS.setRelease(table, i, n);
        }

        Binding find(Object key, int hash) {
            Node[] t = table;
            for (Node n = getBucketAcquire(t, hash & (t.length - 1)); n != null; n = n.next) {
                if (n.binding.matches(key, hash)) {
                    return n.binding;
                }
            }
            return null;
        }

        Binding insert(Object key, int hash) {
            // made outside the lock: it may call out (transports, for a stub) and lock or insert other keys
            Monitor m = owner.factory.apply(key);
            synchronized (this) {
                return insertLocked(key, hash, m);
            }
        }

        private Binding insertLocked(Object key, int hash, Monitor m) {
            Binding found = find(key, hash);
            if (found != null && !found.monitor.isRetired()) {
                return found; // a racing (or nested) insert won; m is dropped unused
            }
            if (count + 1 > threshold(table.length)) {
                sweepAndRebuild();
            }
            Node[] t = table;
            int i = hash & (t.length - 1);
            Binding b = m.remote != null
                    ? new Binding(null, hash, m, new WeakReference<>(key))
                    : new Binding(key, hash, m, null);
            setBucketRelease(t, i, new Node(b, getBucketAcquire(t, i)));
            count++;
            return b;
        }

        private static int threshold(int capacity) {
            return (capacity >> 1) + (capacity >> 2);
        }

        /**
         * Retires idle bindings not used since the last sweep. If any were dropped, or the segment is full
         * or much too large, moves the rest into a table sized for them (at most a quarter full, so the next
         * sweep from an insert is at least half a table of inserts away: the cost is amortised); otherwise
         * leaves the table as it is (a sweep after a collection must not make garbage for the next one).
         * Caller holds the lock.
         */
        void sweepAndRebuild() {
            Node[] old = table;
            int live = 0;
            for (int i = 0; i < old.length; i++) {
                for (Node n = old[i]; n != null; n = n.next) {
                    live += keep(n.binding) ? 1 : 0;
                }
            }
            int capacity = INITIAL_CAPACITY;
            while (capacity < live << 2) {
                capacity <<= 1;
            }
            if (live == count && live + 1 <= threshold(old.length) && old.length <= capacity << 2) {
                return;
            }
            Node[] rebuilt = new Node[capacity];
            int kept = 0;
            for (int i = 0; i < old.length; i++) {
                for (Node n = old[i]; n != null; n = n.next) {
                    if (n.binding.isLive()) { // kept above (a stub collected since is dropped now)
                        int j = n.binding.hash & (capacity - 1);
                        rebuilt[j] = new Node(n.binding, rebuilt[j]);
                        kept++;
                    }
                }
            }
            count = kept;
            table = rebuilt; // volatile write publishes the new buckets
        }

        private static boolean keep(Binding b) {
            if (b.key == null) {
                return b.weakKey != null && !b.weakKey.refersTo(null); // a stub still alive (else retired)
            }
            if (b.recent) {
                b.recent = false;
                return true;
            }
            if (b.monitor.tryRetire()) {
                b.key = null; // disarms cached references: nothing here keeps the object alive any more
                return false;
            }
            return true;
        }
    }
}
