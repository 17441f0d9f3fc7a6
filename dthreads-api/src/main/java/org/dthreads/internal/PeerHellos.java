package org.dthreads.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * When an adapter tells a peer this site's id and incarnation (a <em>hello</em>, see
 * {@code docs/wire-format.md}): on the first call to a peer, then again on a call made at least
 * {@code -Ddthreads.peers.refreshMillis} (default 20 000) after the last hello to it, so that
 * {@link PeerSites} at the peer keeps seeing every live site that talks to it and can tell two
 * live sites with one id from a restart. Calls in between pay one map look-up and carry nothing.
 *
 * <p>Thread-safe, lock-free: a key's next due time is claimed with one {@code putIfAbsent} or
 * {@code replace}, so concurrent calls to one peer send one hello. The table is bounded
 * ({@value #MAX_PEERS} keys; when full it is cleared, which costs at most one extra hello per peer).
 */
public final class PeerHellos {

    /** System property: milliseconds between hellos to one peer while calls to it continue. */
    public static final String REFRESH_PROPERTY = "dthreads.peers.refreshMillis";

    static final int MAX_PEERS = 4096;

    private static final long REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(refreshMillis());
    /** A peer that cannot answer hellos (no dthreads, an older one): not asked again for a day. */
    private static final long GIVE_UP_NANOS = TimeUnit.DAYS.toNanos(1);
    private static final ConcurrentHashMap<Object, Long> NEXT = new ConcurrentHashMap<>();

    private PeerHellos() {}

    private static long refreshMillis() {
        try {
            long millis = Long.parseLong(System.getProperty(REFRESH_PROPERTY, "20000").trim());
            return Math.min(Math.max(millis, 100), TimeUnit.HOURS.toMillis(1));
        } catch (RuntimeException e) {
            return 20_000;
        }
    }

    /**
     * Whether a hello to the peer {@code key} (an endpoint, a connection) is due with this call; if so the
     * caller sends it, and no other call gets {@code true} for that key until the refresh period has passed.
     */
    public static boolean due(Object key) {
        long now = System.nanoTime();
        Long next = NEXT.get(key);
        if (next != null) {
            return now - next >= 0 && NEXT.replace(key, next, now + REFRESH_NANOS);
        }
        if (NEXT.size() >= MAX_PEERS) {
            NEXT.clear();
        }
        return NEXT.putIfAbsent(key, now + REFRESH_NANOS) == null;
    }

    /** The peer {@code key} cannot answer hellos: do not ask it again for a day. */
    public static void giveUp(Object key) {
        NEXT.put(key, System.nanoTime() + GIVE_UP_NANOS);
    }

    /** For tests: how many peers the table holds. */
    static int size() {
        return NEXT.size();
    }

    /** For tests: forget every peer. */
    static void forget() {
        NEXT.clear();
    }
}
