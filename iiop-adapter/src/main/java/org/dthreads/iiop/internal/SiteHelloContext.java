package org.dthreads.iiop.internal;

import org.dthreads.internal.KernelLink;
import org.dthreads.internal.PeerHellos;
import org.dthreads.internal.RateLimitedLog;

/**
 * The site hello service context (issue 15 §5, duplicate site ids): id {@value #ID_HEX}, body a CDR
 * encapsulation of {@code struct { unsigned long site; unsigned long long incarnation; }} — 16 bytes (see
 * {@code docs/wire-format.md}):
 *
 * <pre>
 *   offset 0     byte-order octet: 0 = big-endian, 1 = little-endian
 *   offset 1..3  padding (any value; ignored)
 *   offset 4..7  the sender's site id, non-zero
 *   offset 8..15 the sender's incarnation token, non-zero
 * </pre>
 *
 * <p>A client adds it to a synchronous two-way request when {@link PeerHellos#due} says a hello to the
 * request's peer is due (its first request to that peer, then one per refresh period while requests
 * continue), and marks that request's identity context ({@link IdentityContext}, whose padding receivers
 * ignore) with {@link #FLAG} in byte 1, so that a server on the Portable Interceptor path asks for this context
 * only when it is there (asking for an absent one costs an exception). The server gives the sender's id and
 * incarnation to {@code PeerSites} ({@link #observe}). Every other request carries nothing more. The reply
 * carries no hello: the client asks the server for its identity with a separate request
 * ({@link SiteHelloRequests}).
 *
 * <p>Stateless apart from {@link PeerHellos}' table; thread-safe. Nothing here throws: a malformed body is
 * logged (rate-limited) and ignored, and the request is served as usual.
 */
public final class SiteHelloContext {

    /** Service context id: {@code 0x44540002} ("DT", context 2). */
    public static final int ID = 0x44540002;

    static final String ID_HEX = "0x44540002";

    /** Exact length of a well-formed body. */
    public static final int LENGTH = 16;

    /** Byte 1 of an identity context body (padding, ignored by receivers) when a hello comes with it. */
    public static final byte FLAG = 0x48; // 'H'

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(org.dthreads.iiop.DThreadsOrbInitializer.class);

    private SiteHelloContext() {}

    /** This site's hello body, big-endian, zero padding. */
    public static byte[] own() {
        return encode(KernelLink.siteId(), KernelLink.siteIncarnation());
    }

    /** Encodes a hello big-endian with zero padding. */
    public static byte[] encode(int siteId, long incarnation) {
        byte[] body = new byte[LENGTH];
        for (int i = 0; i < 4; i++) {
            body[4 + i] = (byte) (siteId >>> (8 * (3 - i)));
        }
        for (int i = 0; i < 8; i++) {
            body[8 + i] = (byte) (incarnation >>> (8 * (7 - i)));
        }
        return body;
    }

    /**
     * The identity context body for a request of {@code threadClass}, marked with {@link #FLAG} if a hello to
     * {@code peerKey} is due (the caller then adds {@link #own()} as context {@link #ID}); {@code peerKey} null:
     * no hello.
     */
    static byte[] identityBody(long threadClass, Object peerKey) {
        byte[] body = IdentityContext.encode(threadClass);
        if (peerKey != null && PeerHellos.due(peerKey)) {
            body[1] = FLAG;
        }
        return body;
    }

    /** Whether an identity context body says a hello comes with it. */
    static boolean flagged(byte[] identityBody) {
        return identityBody != null && identityBody.length > 1 && identityBody[1] == FLAG;
    }

    /**
     * Gives the hello in {@code body} to the site's table of peers. Never throws.
     *
     * @param body the context's body (null: none, nothing done)
     * @param peer who sent it, for log lines
     */
    static void observe(byte[] body, String peer) {
        if (body == null) {
            return;
        }
        try {
            String problem = problem(body);
            if (problem != null) {
                LOG.warn("malformed-hello-context", "dthreads: malformed site hello service context " + ID_HEX
                        + " from " + peer + " (" + problem + "); ignored");
                return;
            }
            boolean little = body[0] == 1;
            KernelLink.observePeer((int) read(body, 4, 4, little), read(body, 8, 8, little), peer);
        } catch (Throwable t) {
            Safety.rethrowFatal(t);
        }
    }

    /** Names the sender of a request for log lines: its address from the ORB's request object, if it has one. */
    static String peerOf(Object request) {
        String peer = MonitorRequests.peerOf(request, 0);
        return peer.startsWith("iiop site") ? "iiop peer (address unknown)" : peer;
    }

    /** Why {@code body} is malformed, or null if it is a well-formed hello. */
    static String problem(byte[] body) {
        if (body.length != LENGTH) {
            return "length " + body.length + " (expected " + LENGTH + ")";
        }
        if (body[0] != 0 && body[0] != 1) {
            return "unknown byte-order octet 0x" + Integer.toHexString(body[0] & 0xFF);
        }
        boolean little = body[0] == 1;
        if (read(body, 4, 4, little) == 0 || read(body, 8, 8, little) == 0) {
            return "site id and incarnation must be non-zero";
        }
        return null;
    }

    /** An unsigned integer of {@code length} bytes at {@code offset}, in the encapsulation's byte order (also {@link IiopEndpoint}). */
    static long read(byte[] body, int offset, int length, boolean little) {
        long v = 0;
        for (int i = 0; i < length; i++) {
            v = (v << 8) | (body[little ? offset + length - 1 - i : offset + i] & 0xFF);
        }
        return v;
    }
}
