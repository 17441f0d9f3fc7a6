package org.dthreads.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The per-site counter of thread ids (the low half of a thread class).
 *
 * <p>Ids run through the 2<sup>32</sup>&nbsp;&minus;&nbsp;1 non-zero unsigned 32-bit values in
 * order, starting at a per-start {@code origin} and skipping 0: origin, origin+1, &hellip;,
 * {@code 0xffffffff}, 1, 2, &hellip;, origin&minus;1. Any 2<sup>32</sup>&nbsp;&minus;&nbsp;1
 * consecutive allocations are therefore distinct. The next allocation <em>wraps</em>: it returns the
 * origin again and the cycle repeats; each wrap is reported once through {@code onWrap}, since from
 * then on an id can equal that of a thread that is still alive (it would have to have lived through
 * 4,294,967,295 allocations).
 *
 * <p>Lock-free: one {@code getAndIncrement} on a 64-bit count, which cannot overflow in practice
 * (2<sup>63</sup> allocations); the id is a pure function of the count, so concurrent callers never
 * see the same id within a cycle.
 */
public final class ThreadIdAllocator {

    /** Number of distinct ids in one cycle: every unsigned 32-bit value except 0. */
    public static final long PERIOD = 0xFFFF_FFFFL;

    private final long originIndex; // origin - 1, in [0, PERIOD)
    private final AtomicLong count;
    private final Runnable onWrap;

    /**
     * @param origin      first id handed out, non-zero
     * @param startCount  allocations already made (tests start near a wrap); normally 0
     * @param onWrap      called once each time the counter completes a cycle; must not throw
     */
    public ThreadIdAllocator(int origin, long startCount, Runnable onWrap) {
        if (origin == 0) {
            throw new IllegalArgumentException("origin must be non-zero");
        }
        if (startCount < 0) {
            throw new IllegalArgumentException("startCount must be >= 0");
        }
        this.originIndex = Integer.toUnsignedLong(origin) - 1;
        this.count = new AtomicLong(startCount);
        this.onWrap = onWrap;
    }

    /** The next thread id, never 0. */
    public int next() {
        long n = count.getAndIncrement();
        if (n != 0 && n % PERIOD == 0) {
            onWrap.run();
        }
        return idAt(n);
    }

    /** The id handed out by allocation number {@code n} (0-based). */
    int idAt(long n) {
        return (int) ((originIndex + n % PERIOD) % PERIOD + 1);
    }

    /** Allocations made so far. */
    public long allocations() {
        return count.get();
    }
}
