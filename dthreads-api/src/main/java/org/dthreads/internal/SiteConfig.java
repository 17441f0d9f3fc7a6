package org.dthreads.internal;

import java.security.SecureRandom;
import java.util.Random;

/**
 * How this site's identity is chosen at start: the site id ({@code -Ddthreads.site}), the
 * thread-id counter's origin, and the incarnation token.
 *
 * <h2>Incarnations</h2>
 * A restarted site must not hand out a class that a peer may still hold from the site's previous
 * life (a remote owner recorded in a monitor table, a lease). Each start therefore draws, from a
 * {@link SecureRandom}:
 * <ul>
 *   <li>a random site id, unless one is configured: a restart then presents a new site id, and a
 *       class of the previous life can be met again only if the new id equals the old one
 *       (probability 2<sup>-32</sup> per restart);</li>
 *   <li>a random counter origin: with a configured site id, a previous life that allocated
 *       {@code n} classes and a new life that allocates {@code m} overlap with probability about
 *       {@code (n + m) / 2^32} (for n = m = 10,000: 4.7&times;10<sup>-6</sup>). Peers drop a dead
 *       site's classes when its leases expire, so the overlap matters only within a lease;</li>
 *   <li>a random 64-bit incarnation token, which peers use to tell a restart of a site from a
 *       second live site that presents the same site id ({@link PeerSites}).</li>
 * </ul>
 * Two live sites with random ids collide with probability about {@code N^2 / 2^33} for N sites
 * (N = 100: 1.2&times;10<sup>-6</sup>); configure ids where that is too much.
 */
public final class SiteConfig {

    /** System property naming this site's id: decimal (signed or unsigned 32-bit) or {@code 0x} hex. */
    public static final String SITE_PROPERTY = "dthreads.site";

    private final int siteId;
    private final boolean configured;
    private final int counterOrigin;
    private final long incarnation;
    private final String problem;

    private SiteConfig(int siteId, boolean configured, int counterOrigin, long incarnation, String problem) {
        this.siteId = siteId;
        this.configured = configured;
        this.counterOrigin = counterOrigin;
        this.incarnation = incarnation;
        this.problem = problem;
    }

    /** Reads {@value #SITE_PROPERTY} and draws the random parts. Never throws. */
    public static SiteConfig fromSystemProperties() {
        return from(System.getProperty(SITE_PROPERTY), new SecureRandom());
    }

    /**
     * @param siteProperty the configured site id, or null
     * @param random       source of the random parts
     */
    public static SiteConfig from(String siteProperty, Random random) {
        int origin = nonZeroInt(random);
        long incarnation = nonZeroLong(random);
        if (siteProperty == null || siteProperty.isBlank()) {
            return new SiteConfig(nonZeroInt(random), false, origin, incarnation, null);
        }
        Integer parsed = parseSiteId(siteProperty.trim());
        if (parsed == null || parsed == 0) {
            String problem = "-D" + SITE_PROPERTY + "=" + siteProperty
                    + " is not a non-zero 32-bit integer (decimal or 0x hex); using a random site id";
            return new SiteConfig(nonZeroInt(random), false, origin, incarnation, problem);
        }
        return new SiteConfig(parsed, true, origin, incarnation, null);
    }

    /** Parses decimal (-2147483648..4294967295) or 0x hex (up to 8 digits); null if malformed. */
    static Integer parseSiteId(String text) {
        try {
            long value;
            if (text.startsWith("0x") || text.startsWith("0X")) {
                String digits = text.substring(2);
                if (digits.isEmpty() || digits.length() > 8) {
                    return null;
                }
                value = Long.parseLong(digits, 16);
            } else {
                value = Long.parseLong(text);
                if (value < Integer.MIN_VALUE || value > 0xFFFF_FFFFL) {
                    return null;
                }
            }
            return (int) value;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static int nonZeroInt(Random random) {
        int v;
        do {
            v = random.nextInt();
        } while (v == 0);
        return v;
    }

    private static long nonZeroLong(Random random) {
        long v;
        do {
            v = random.nextLong();
        } while (v == 0);
        return v;
    }

    public int siteId() {
        return siteId;
    }

    /** Whether the site id came from {@value #SITE_PROPERTY} (rather than chance). */
    public boolean configured() {
        return configured;
    }

    public int counterOrigin() {
        return counterOrigin;
    }

    public long incarnation() {
        return incarnation;
    }

    /** A message about a bad configuration that was replaced by a default, or null. */
    public String problem() {
        return problem;
    }
}
