package org.dthreads.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * What this site has seen of its peers' identities, to detect two live sites that present the
 * same site id (a mis-configured {@code -Ddthreads.site}, or a random collision).
 *
 * <p>Adapters call {@link #observe} whenever a peer tells its site id together with its incarnation
 * token (drawn at each start, see {@link SiteConfig}); they repeat it while they keep talking to the
 * peer ({@link PeerHellos}). A token differs from one start to the next, so:
 * <ul>
 *   <li>a new token for a known site id is a <em>restart</em> (the old life is over): nothing logged,
 *       however soon after the old token was last seen;</li>
 *   <li>the <em>superseded</em> token showing up again afterwards means its process is still alive:
 *       two live sites share the id, which is logged (rate-limited) with both peers. A stopped
 *       process cannot send its old token again, so a restart is never reported as a duplicate;</li>
 *   <li>a peer presenting this site's own id with another token is logged at once (this site is
 *       alive, so both are).</li>
 * </ul>
 *
 * <p>Thread-safe: one {@link ConcurrentHashMap#compute} per observation; the table is bounded
 * ({@value #MAX_SITES} sites; entries not seen for {@code liveWindow} make room) so a peer inventing
 * site ids cannot grow it without limit.
 */
public final class PeerSites {

    /** The outcome of one observation. */
    public enum Observation { NEW, KNOWN, RESTARTED, DUPLICATE, DUPLICATE_OF_SELF, IGNORED }

    static final int MAX_SITES = 4096;

    /** The current token of a site id, and the one it superseded (0 if none) with its peer. */
    private record Sighting(long incarnation, String peer, long seenAt, long superseded, String supersededPeer) {
        Sighting(long incarnation, String peer, long seenAt) {
            this(incarnation, peer, seenAt, 0, null);
        }
    }

    private final int ownSiteId;
    private final long ownIncarnation;
    private final long liveWindowNanos;
    private final LongSupplier nanoClock;
    private final RateLimitedLog log;
    private final ConcurrentHashMap<Integer, Sighting> sites = new ConcurrentHashMap<>();

    public PeerSites(int ownSiteId, long ownIncarnation, long liveWindowNanos, LongSupplier nanoClock,
            RateLimitedLog log) {
        this.ownSiteId = ownSiteId;
        this.ownIncarnation = ownIncarnation;
        this.liveWindowNanos = liveWindowNanos;
        this.nanoClock = nanoClock;
        this.log = log;
    }

    static PeerSites forSite(int ownSiteId, long ownIncarnation) {
        // the clock a class, not System::nanoTime: this runs at the agent's start (issue 16)
        return new PeerSites(ownSiteId, ownIncarnation, TimeUnit.SECONDS.toNanos(60), RateLimitedLog.NanoClock.INSTANCE,
                RateLimitedLog.forClass(PeerSites.class));
    }

    /**
     * Records that {@code peer} presented {@code siteId} with {@code incarnation} (0 if unknown).
     * Never throws.
     */
    public Observation observe(int siteId, long incarnation, String peer) {
        if (siteId == 0) {
            return Observation.IGNORED;
        }
        String who = String.valueOf(peer);
        if (siteId == ownSiteId) {
            if (incarnation != 0 && incarnation != ownIncarnation) {
                log.warn("peer-uses-own-site-id", "dthreads: peer " + who + " presents this site's own id "
                        + siteIdText(siteId) + "; thread classes of the two sites can be confused."
                        + " Give each site a distinct -D" + SiteConfig.SITE_PROPERTY);
                return Observation.DUPLICATE_OF_SELF;
            }
            return Observation.KNOWN;
        }
        long now = nanoClock.getAsLong();
        if (sites.size() >= MAX_SITES && !sites.containsKey(siteId)) {
            sites.values().removeIf(s -> now - s.seenAt() > liveWindowNanos);
            if (sites.size() >= MAX_SITES) {
                log.warn("peer-table-full", "dthreads: more than " + MAX_SITES
                        + " live peer sites; not tracking site " + siteIdText(siteId) + " from " + who);
                return Observation.IGNORED;
            }
        }
        Observation[] outcome = new Observation[1];
        Sighting[] previous = new Sighting[1];
        sites.compute(siteId, (id, old) -> {
            previous[0] = old;
            if (old == null) {
                outcome[0] = Observation.NEW;
                return new Sighting(incarnation, who, now);
            }
            if (incarnation == 0 || old.incarnation() == 0 || incarnation == old.incarnation()) {
                outcome[0] = Observation.KNOWN;
                return new Sighting(incarnation != 0 ? incarnation : old.incarnation(), who, now, old.superseded(),
                        old.supersededPeer());
            }
            if (incarnation == old.superseded()) {
                // the old life is still talking after the new one appeared: both alive. Swap, so that each
                // further alternation is seen as well.
                outcome[0] = Observation.DUPLICATE;
                return new Sighting(incarnation, who, now, old.incarnation(), old.peer());
            }
            outcome[0] = Observation.RESTARTED;
            return new Sighting(incarnation, who, now, old.incarnation(), old.peer());
        });
        if (outcome[0] == Observation.DUPLICATE) {
            log.warn("duplicate-site-id", "dthreads: two live sites present site id " + siteIdText(siteId)
                    + ": " + previous[0].peer() + " (incarnation " + Long.toHexString(previous[0].incarnation())
                    + ") and " + who + " (incarnation " + Long.toHexString(incarnation)
                    + "); their thread classes can be confused. Give each site a distinct -D"
                    + SiteConfig.SITE_PROPERTY);
        }
        return outcome[0];
    }

    private static String siteIdText(int siteId) {
        return Integer.toUnsignedString(siteId) + String.format(" (0x%08x)", siteId);
    }
}
