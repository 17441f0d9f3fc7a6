package org.dthreads.monitor.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.function.Consumer;

/**
 * A concurrent, weak, identity-keyed map from objects to their {@link Monitor}s.
 *
 * <h2>Design</h2>
 * No JDK map is both weak and identity-keyed, so this is one: a fixed array of segments, each a
 * chained hash table of {@link Entry} (a {@link WeakReference} to the key, with the key's
 * {@link System#identityHashCode} and its monitor). Keys compare by {@code ==} only, never {@code equals}.
 * <ul>
 *   <li>Reads are lock-free: a volatile read of the segment's table, an acquire read of the bucket, then
 *       a walk of an immutable chain (all {@code Entry} fields are final). A thread that created or found
 *       a monitor earlier always finds it again: the insert happened-before through the segment lock and
 *       the release write of the bucket, and removal only drops entries whose key is already gone.</li>
 *   <li>Writes (insert, expunge, resize) hold the segment's own lock (its native monitor); chains are
 *       never mutated in place, only rebuilt, so readers see either the old or the new chain, both valid.
 *       Different segments never contend; two objects contend only when they land in the same segment
 *       <em>and</em> both are being inserted for the first time.</li>
 *   <li>Weakness: an entry holds its key weakly and its monitor strongly, and the monitor pins the key
 *       (a strong reference) only while it is owned or waited on, so a monitor owned from a remote site,
 *       with no local reference left, is not collected. Cleared entries go to the segment's
 *       {@link ReferenceQueue} and are expunged by the next insert into that segment.</li>
 * </ul>
 */
final class MonitorTable {
    private static final int DEFAULT_SEGMENT_BITS = 6; // 64 segments, indexed by the top bits of the spread hash
    private static final int INITIAL_CAPACITY = 16;

    private final int segmentShift;
    private final Segment[] segments;

    MonitorTable() {
        this(DEFAULT_SEGMENT_BITS);
    }

    /** A table of {@code 2^segmentBits} segments (1..16 bits); fewer segments make resizes easy to test. */
    MonitorTable(int segmentBits) {
        this.segmentShift = 32 - segmentBits;
        this.segments = new Segment[1 << segmentBits];
        for (int i = 0; i < segments.length; i++) {
            segments[i] = new Segment();
        }
    }

    private static int spread(int identityHash) {
        return identityHash * 0x9E3779B9; // Fibonacci hashing: mixes low bits into the top ones
    }

    private Segment segmentFor(int spread) {
        return segments[spread >>> segmentShift];
    }

    /** The monitor of {@code key}, or {@code null} if it never had one (or it was collected). */
    Monitor get(Object key) {
        int hash = System.identityHashCode(key);
        int spread = spread(hash);
        return segmentFor(spread).get(key, hash);
    }

    /** The monitor of {@code key}, created if absent. */
    Monitor getOrCreate(Object key) {
        int hash = System.identityHashCode(key);
        int spread = spread(hash);
        Segment segment = segmentFor(spread);
        Monitor m = segment.get(key, hash);
        return m != null ? m : segment.insert(key, hash);
    }

    /** Visits every live monitor; weakly consistent (no lock), for dumps. */
    void forEach(Consumer<Monitor> action) {
        for (Segment segment : segments) {
            Entry[] table = segment.table;
            for (int i = 0; i < table.length; i++) {
                for (Entry e = Segment.getBucketAcquire(table, i); e != null; e = e.next) {
                    if (e.get() != null) {
                        action.accept(e.monitor);
                    }
                }
            }
        }
    }

    /**
     * Tests only: behaves as if {@code key} had been collected — clears its entry and queues it for
     * expunging — although the caller still holds it. Returns whether there was an entry.
     */
    boolean simulateCollected(Object key) {
        int hash = System.identityHashCode(key);
        Entry[] t = segmentFor(spread(hash)).table;
        for (Entry e = Segment.getBucketAcquire(t, hash & (t.length - 1)); e != null; e = e.next) {
            if (e.hash == hash && e.get() == key) {
                return e.enqueue(); // clears the referent, then queues it
            }
        }
        return false;
    }

    /** Whether two keys land in the same segment and bucket of a fresh table of this shape; for tests. */
    boolean sameFreshBucket(Object a, Object b) {
        int ha = System.identityHashCode(a);
        int hb = System.identityHashCode(b);
        return segmentFor(spread(ha)) == segmentFor(spread(hb)) && (ha & (INITIAL_CAPACITY - 1)) == (hb & (INITIAL_CAPACITY - 1));
    }

    /** Entries (live or not yet expunged); for tests. */
    int size() {
        int n = 0;
        for (Segment segment : segments) {
            synchronized (segment) {
                segment.expungeStaleEntries();
                n += segment.count;
            }
        }
        return n;
    }

    static final class Entry extends WeakReference<Object> {
        final int hash;
        final Monitor monitor;
        final Entry next;

        Entry(Object key, int hash, Monitor monitor, Entry next, ReferenceQueue<Object> queue) {
            super(key, queue);
            this.hash = hash;
            this.monitor = monitor;
            this.next = next;
        }
    }

    /** One lock stripe. {@code table} and its buckets are written only under {@code synchronized (this)}. */
    static final class Segment {
        private static final VarHandle BUCKETS = MethodHandles.arrayElementVarHandle(Entry[].class);

        volatile Entry[] table = new Entry[INITIAL_CAPACITY];
        int count; // guarded by this
        private final ReferenceQueue<Object> queue = new ReferenceQueue<>();

        static Entry getBucketAcquire(Entry[] table, int i) {
            return (Entry) BUCKETS.getAcquire(table, i);
        }

        private static void setBucketRelease(Entry[] table, int i, Entry e) {
            BUCKETS.setRelease(table, i, e);
        }

        Monitor get(Object key, int hash) {
            Entry[] t = table;
            for (Entry e = getBucketAcquire(t, hash & (t.length - 1)); e != null; e = e.next) {
                if (e.hash == hash && e.get() == key) {
                    return e.monitor;
                }
            }
            return null;
        }

        synchronized Monitor insert(Object key, int hash) {
            expungeStaleEntries();
            Monitor found = get(key, hash);
            if (found != null) {
                return found;
            }
            if (count + 1 > (table.length >> 1) + (table.length >> 2)) {
                resize();
            }
            Entry[] t = table;
            int i = hash & (t.length - 1);
            Monitor m = new Monitor(key);
            setBucketRelease(t, i, new Entry(key, hash, m, getBucketAcquire(t, i), queue));
            count++;
            Reference.reachabilityFence(key);
            return m;
        }

        /** Drops entries whose keys were collected. Caller holds the lock. */
        void expungeStaleEntries() {
            for (Object ref; (ref = queue.poll()) != null; ) {
                Entry stale = (Entry) ref;
                Entry[] t = table;
                int i = stale.hash & (t.length - 1);
                Entry head = getBucketAcquire(t, i);
                // rebuild the chain without every cleared entry (the stale one may have been copied by a
                // resize; its copy is cleared too, and is removed here or when its own turn comes)
                Entry rebuilt = null;
                int removed = 0;
                for (Entry e = head; e != null; e = e.next) {
                    Object k = e.get();
                    if (k == null) {
                        removed++;
                    } else {
                        rebuilt = new Entry(k, e.hash, e.monitor, rebuilt, queue);
                    }
                }
                if (removed > 0) {
                    setBucketRelease(t, i, rebuilt);
                    count -= removed;
                }
            }
        }

        private void resize() {
            Entry[] old = table;
            Entry[] grown = new Entry[old.length << 1];
            int live = 0;
            for (int i = 0; i < old.length; i++) {
                for (Entry e = getBucketAcquire(old, i); e != null; e = e.next) {
                    Object k = e.get();
                    if (k != null) {
                        int j = e.hash & (grown.length - 1);
                        grown[j] = new Entry(k, e.hash, e.monitor, grown[j], queue);
                        live++;
                    }
                }
            }
            count = live;
            table = grown; // volatile write publishes the new buckets
        }
    }
}
