package org.dthreads.iiop.internal;

import org.dthreads.ThreadClass;

/**
 * The dthreads identity service context: id {@value #ID_HEX}, body a CDR encapsulation of one
 * {@code long long} (see {@code docs/wire-format.md}).
 *
 * <pre>
 *   offset 0     byte-order octet: 0 = big-endian, 1 = little-endian
 *   offset 1..7  padding to the 8-byte alignment of the long long (any value; ignored)
 *   offset 8..15 the class, in the byte order of offset 0
 * </pre>
 *
 * Hand-written rather than through an ORB {@code Codec}: it is the same bytes, needs no ORB, and
 * cannot trigger a request. Stateless and thread-safe.
 */
public final class IdentityContext {

    /** Service context id: {@code 0x44540001} ("DT", context 1). */
    public static final int ID = 0x44540001;

    static final String ID_HEX = "0x44540001";

    /** Exact length of a well-formed body. */
    public static final int LENGTH = 16;

    private IdentityContext() {}

    /** Encodes {@code threadClass} big-endian (octet 0, zero padding), as this adapter sends it. */
    public static byte[] encode(long threadClass) {
        return encode(threadClass, false);
    }

    /** Encodes {@code threadClass} in the given byte order, with zero padding. */
    public static byte[] encode(long threadClass, boolean littleEndian) {
        byte[] body = new byte[LENGTH];
        body[0] = (byte) (littleEndian ? 1 : 0);
        for (int i = 0; i < 8; i++) {
            int shift = littleEndian ? 8 * i : 8 * (7 - i);
            body[8 + i] = (byte) (threadClass >>> shift);
        }
        return body;
    }

    /**
     * Decodes a body. Honors the byte-order octet, ignores the padding.
     *
     * @return the class, or {@link ThreadClass#NONE} if the body is malformed (see {@link #problem})
     */
    public static long decode(byte[] body) {
        if (body == null || body.length != LENGTH) {
            return ThreadClass.NONE;
        }
        boolean little;
        if (body[0] == 0) {
            little = false;
        } else if (body[0] == 1) {
            little = true;
        } else {
            return ThreadClass.NONE;
        }
        long v = 0;
        for (int i = 0; i < 8; i++) {
            int b = body[little ? 15 - i : 8 + i] & 0xFF;
            v = (v << 8) | b;
        }
        return ThreadClass.isValid(v) ? v : ThreadClass.NONE;
    }

    /** Why {@code body} is malformed, or null if {@link #decode} accepts it. For log lines. */
    public static String problem(byte[] body) {
        if (body == null) {
            return "no body";
        }
        if (body.length != LENGTH) {
            return "length " + body.length + " (expected " + LENGTH + ")";
        }
        if (body[0] != 0 && body[0] != 1) {
            return "unknown byte-order octet 0x" + Integer.toHexString(body[0] & 0xFF);
        }
        byte[] copy = body.clone();
        long raw = 0;
        boolean little = body[0] == 1;
        for (int i = 0; i < 8; i++) {
            raw = (raw << 8) | (copy[little ? 15 - i : 8 + i] & 0xFF);
        }
        if (!ThreadClass.isValid(raw)) {
            return "not a valid class: 0x" + Long.toHexString(raw) + " (site id and thread id must be non-zero)";
        }
        return null;
    }
}
