package example.monitors;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * What the lease scenarios' counters see at the server (issue 15 §1): how many clients are inside their
 * {@code synchronized (counter) { v = get(); ...; set(v + 1); }} block at once ({@code get} enters,
 * {@code set} leaves). More than one is a broken exclusion, whatever the clients believe. Shared by the JRMP
 * ({@code rmi.LeaseSites}) and IIOP ({@code corba.LeaseCounterSite}) counters.
 */
public final class BlockWatch {
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger maxInside = new AtomicInteger();

    /** A client's {@code get}: it is inside. */
    public void entered() {
        maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
    }

    /** A client's {@code set}: it is leaving. */
    public void left() {
        inside.decrementAndGet();
    }

    /** The most clients ever inside at once. */
    public int maxInside() {
        return maxInside.get();
    }

    /** Holds a block for {@code millis} (the scenario's work; not a test's wait). */
    public static void pause(long millis) {
        long until = System.nanoTime() + millis * 1_000_000L;
        for (long left; (left = until - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(left);
        }
    }
}
