package org.dthreads.monitor.internal;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Objects that keep the JVM's monitor although their class is emulated: plain objects that JDK code also
 * locks, marked by rewritten code where they come out of the JDK's API (issue 21; the call sites are in
 * {@code docs/rewriter.md}, "Objects the JDK locks"): the result of {@code ClassLoader.getClassLoadingLock},
 * the lock handed to {@code Reader(Object)} / {@code Writer(Object)}, and so on. {@link MonitorModes#mode}
 * consults the mark after the class's mode says emulated.
 *
 * <h2>Cost</h2>
 * Nothing is allocated until the first mark: the mode test then reads one static volatile field (null) and
 * goes on. After it, an emulated object costs an identity hash and one bit of a 2^18-bit filter indexed
 * by it; only objects whose bit is set (the marked ones and their hash collisions) look in the map.
 *
 * <h2>Concurrency</h2>
 * A mark puts the object in {@link #MARKED} (keyed by identity hash, values are weak references) before
 * it sets the filter bit with a volatile write, so a thread that sees the bit sees the entry. The mark
 * is made by the thread that takes the object out of the API, before it publishes it; a thread that
 * reaches the object through a data race may miss it (as it may miss any other write). Marks are never
 * removed while the object lives; collected objects' entries are dropped on later marks. Filter bits
 * are never cleared (a stale bit costs a map look-up, not a wrong answer).
 */
public final class NativeMarks {
    private static final int FILTER_WORDS = 1 << 12; // 2^18 bits, 32 KiB
    private static final ConcurrentHashMap<Integer, Ref[]> MARKED = new ConcurrentHashMap<>();
    private static final ReferenceQueue<Object> COLLECTED = new ReferenceQueue<>();
    /** Null until the first mark: the whole cost of this class for a program that never marks. */
    private static volatile AtomicLongArray filter;

    private NativeMarks() {}

    private static final class Ref extends WeakReference<Object> {
        final int hash;

        Ref(Object o, int hash) {
            super(o, COLLECTED);
            this.hash = hash;
        }
    }

    /**
     * Marks {@code o} (if not null) as keeping the JVM's monitor and returns it: rewritten code calls
     * this (through {@code Monitors.keepNative}) on a value that JDK code also locks. Never throws.
     */
    public static Object keepNative(Object o) {
        if (o == null) {
            return null;
        }
        try {
            mark(o);
        } catch (Throwable t) {
            MonitorRuntime.LOG.error("native-mark-failed", "dthreads: could not keep the JVM's monitor for an "
                    + o.getClass().getName() + " that JDK code also locks; exclusion with that code may be lost: " + t);
        }
        return o;
    }

    private static void mark(Object o) {
        int hash = System.identityHashCode(o);
        AtomicLongArray current = filter;
        if (current != null && isMarked(current, o, hash)) {
            return;
        }
        expungeCollected();
        MARKED.compute(hash, (h, refs) -> {
            if (refs == null) {
                return new Ref[] {new Ref(o, h)};
            }
            for (Ref r : refs) {
                if (r.get() == o) {
                    return refs;
                }
            }
            Ref[] more = java.util.Arrays.copyOf(refs, refs.length + 1);
            more[refs.length] = new Ref(o, h);
            return more;
        });
        AtomicLongArray f = filter;
        if (f == null) {
            synchronized (NativeMarks.class) {
                f = filter;
                if (f == null) {
                    f = new AtomicLongArray(FILTER_WORDS);
                    filter = f;
                }
            }
        }
        long bit = 1L << (hash & 63);
        int word = (hash >>> 6) & (FILTER_WORDS - 1);
        f.getAndUpdate(word, w -> w | bit);
    }

    /** Whether {@code o} (not null) was marked. On the mode test's path: see the class comment for the cost. */
    static boolean isMarked(Object o) {
        AtomicLongArray f = filter;
        return f != null && isMarked(f, o, System.identityHashCode(o));
    }

    private static boolean isMarked(AtomicLongArray f, Object o, int hash) {
        if ((f.get((hash >>> 6) & (FILTER_WORDS - 1)) & (1L << (hash & 63))) == 0) {
            return false;
        }
        Ref[] refs = MARKED.get(hash);
        if (refs != null) {
            for (Ref r : refs) {
                if (r.get() == o) {
                    return true;
                }
            }
        }
        return false;
    }

    private static void expungeCollected() {
        for (Object x; (x = COLLECTED.poll()) != null; ) {
            Ref dead = (Ref) x;
            MARKED.computeIfPresent(dead.hash, (h, refs) -> {
                int live = 0;
                for (Ref r : refs) {
                    if (r != dead && r.get() != null) {
                        live++;
                    }
                }
                if (live == 0) {
                    return null;
                }
                Ref[] kept = new Ref[live];
                int i = 0;
                for (Ref r : refs) {
                    if (r != dead && r.get() != null) {
                        kept[i++] = r;
                    }
                }
                return kept;
            });
        }
    }
}
