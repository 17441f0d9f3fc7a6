package org.dthreads.internal;

import org.dthreads.ThreadClass;

/**
 * The answer to a site hello, the same text over JRMP (the diagnose method's op 11) and IIOP (op 11's reply
 * string): {@code "ssssssss:iiiiiiiiiiiiiiii"}, this site's id in 8 and its incarnation in 16 hex digits
 * (see {@code docs/wire-format.md}). Serving a hello tells {@link PeerSites} about the asker; reading an
 * answer tells it about the server. Neither ever throws on bad input: a malformed hello or answer is logged
 * (rate-limited, through the adapter's own log and keys) and observes nothing.
 */
public final class SiteHelloAnswer {

    private SiteHelloAnswer() {}

    /**
     * Server: observes the asker and returns this site's answer, also for a malformed hello.
     *
     * @param threadClass a class of the asking site (its site half is the asker's site id)
     * @param incarnation the asker's incarnation token
     * @param peer the asker, as log lines and {@link PeerSites} name it
     * @param log the adapter's log
     * @param keyPrefix prefixed to the log keys, so that each adapter is rate-limited on its own
     * @return this site's {@link #format}ted identity
     */
    public static String serve(long threadClass, long incarnation, String peer, RateLimitedLog log, String keyPrefix) {
        if (!ThreadClass.isValid(threadClass) || incarnation == 0) {
            log.warn(keyPrefix + "site-hello-malformed", "dthreads: malformed site hello from " + peer + " (class 0x"
                    + Long.toHexString(threadClass) + ", incarnation 0x" + Long.toHexString(incarnation)
                    + "; both must be non-zero, the class's halves too); ignored");
        } else {
            KernelLink.observePeer(ThreadClass.siteId(threadClass), incarnation, peer);
        }
        return format(KernelLink.siteId(), KernelLink.siteIncarnation());
    }

    /**
     * Client: observes the server that gave {@code answer}, or logs it as malformed.
     *
     * @param answer the server's answer, as received
     * @param server the server, as log lines and {@link PeerSites} name it
     * @param log the adapter's log
     * @param keyPrefix prefixed to the log keys
     */
    public static void read(String answer, String server, RateLimitedLog log, String keyPrefix) {
        long[] identity = parse(answer);
        if (identity == null) {
            log.warn(keyPrefix + "site-hello-malformed-answer", "dthreads: malformed site hello answer from " + server
                    + ": " + clip(answer));
            return;
        }
        KernelLink.observePeer((int) identity[0], identity[1], server);
    }

    /**
     * The answer's text.
     *
     * @param siteId a site id
     * @param incarnation that site's incarnation token
     * @return {@code "ssssssss:iiiiiiiiiiiiiiii"}
     */
    public static String format(int siteId, long incarnation) {
        return String.format("%08x:%016x", siteId, incarnation);
    }

    /**
     * Reads a {@link #format}ted answer.
     *
     * @param answer the text, possibly null or malformed
     * @return {@code {siteId, incarnation}}, or null if the text is malformed or either is zero
     */
    public static long[] parse(String answer) {
        if (answer == null || answer.length() != 25 || answer.charAt(8) != ':') {
            return null;
        }
        for (int i = 0; i < 25; i++) {
            if (i != 8 && Character.digit(answer.charAt(i), 16) < 0) {
                return null;
            }
        }
        long site = Long.parseLong(answer.substring(0, 8), 16);
        long incarnation = Long.parseUnsignedLong(answer.substring(9), 16);
        return site == 0 || incarnation == 0 ? null : new long[] {site, incarnation};
    }

    private static String clip(String s) {
        return s == null ? "null" : s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }
}
