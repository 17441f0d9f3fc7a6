package org.dthreads.internal;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
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
 *
 * <p>The random bits come from the kernel's generator, {@code /dev/urandom}, where it exists (what the JDK's
 * default {@code SecureRandom} on Linux and macOS, {@code NativePRNG}, reads too), and from a {@link SecureRandom}
 * elsewhere or if the read fails. Reading the file directly spares every JVM's start the security providers'
 * set-up: about 90 classes and 0.6 MB of metaspace (issue 16).
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
        return from(System.getProperty(SITE_PROPERTY), systemRandom());
    }

    /** The kernel's random bytes where they can be read, else a {@link SecureRandom}. */
    static Random systemRandom() {
        Random r = DevRandom.read("/dev/urandom", 64);
        return r != null ? r : new SecureRandom();
    }

    /**
     * Bytes read once from a random device, handed out by {@link Random#next}; past them, a {@link SecureRandom}
     * (never reached by {@link #from}, which draws at most a few words unless a draw is 0). Not thread-safe:
     * used by one thread while the site's identity is chosen.
     */
    static final class DevRandom extends Random {
        private static final long serialVersionUID = 1L;
        private final byte[] bytes;
        private int next;
        private transient Random more;

        private DevRandom(byte[] bytes) {
            this.bytes = bytes;
        }

        /** {@code n} bytes of {@code device}, or null if it cannot be read in full. */
        static DevRandom read(String device, int n) {
            byte[] b = new byte[n];
            try (InputStream in = new FileInputStream(device)) {
                int got = 0;
                while (got < n) {
                    int r = in.read(b, got, n - got);
                    if (r < 0) {
                        return null;
                    }
                    got += r;
                }
                return new DevRandom(b);
            } catch (IOException | RuntimeException e) {
                return null; // no such device (Windows), or denied: the caller takes a SecureRandom
            }
        }

        @Override
        protected int next(int bits) {
            if (next + 4 > bytes.length) {
                if (more == null) {
                    more = new SecureRandom();
                }
                return more.nextInt() >>> (32 - bits);
            }
            int v = (bytes[next] & 0xff) << 24 | (bytes[next + 1] & 0xff) << 16 | (bytes[next + 2] & 0xff) << 8
                    | bytes[next + 3] & 0xff;
            next += 4;
            return v >>> (32 - bits);
        }
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
