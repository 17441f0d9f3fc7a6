package org.dthreads.monitor.internal.rewriter;

/**
 * SHA-1 (FIPS 180-4) of a byte array, for the default {@code serialVersionUID} the rewriter pins
 * ({@link MonitorRewriter}: ASM's {@code SerialVersionUIDAdder.computeSHAdigest}, which the serialization
 * specification defines as SHA-1). By hand rather than {@code MessageDigest.getInstance("SHA")}: the first look-up
 * of a digest sets up the JDK's security providers, about 100 classes and 0.5 MB of metaspace in a JVM that loads
 * classes under the agent (issue 16). The inputs are a class's names and descriptors: small. Not a general-purpose
 * digest; stateless, thread-safe.
 */
final class Sha1 {

    private Sha1() {}

    static byte[] digest(byte[] data) {
        int n = data.length;
        int blocks = (n + 8) / 64 + 1; // the message, the 0x80 byte, the 8-byte length, padded to 64
        byte[] m = new byte[blocks * 64];
        System.arraycopy(data, 0, m, 0, n);
        m[n] = (byte) 0x80;
        long bits = (long) n * 8;
        for (int i = 0; i < 8; i++) {
            m[m.length - 1 - i] = (byte) (bits >>> (8 * i));
        }
        int h0 = 0x67452301;
        int h1 = 0xEFCDAB89;
        int h2 = 0x98BADCFE;
        int h3 = 0x10325476;
        int h4 = 0xC3D2E1F0;
        int[] w = new int[80];
        for (int b = 0; b < blocks; b++) {
            int off = b * 64;
            for (int i = 0; i < 16; i++) {
                int p = off + 4 * i;
                w[i] = (m[p] & 0xff) << 24 | (m[p + 1] & 0xff) << 16 | (m[p + 2] & 0xff) << 8 | m[p + 3] & 0xff;
            }
            for (int i = 16; i < 80; i++) {
                w[i] = Integer.rotateLeft(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
            }
            int a = h0;
            int bb = h1;
            int c = h2;
            int d = h3;
            int e = h4;
            for (int i = 0; i < 80; i++) {
                int f;
                int k;
                if (i < 20) {
                    f = (bb & c) | (~bb & d);
                    k = 0x5A827999;
                } else if (i < 40) {
                    f = bb ^ c ^ d;
                    k = 0x6ED9EBA1;
                } else if (i < 60) {
                    f = (bb & c) | (bb & d) | (c & d);
                    k = 0x8F1BBCDC;
                } else {
                    f = bb ^ c ^ d;
                    k = 0xCA62C1D6;
                }
                int t = Integer.rotateLeft(a, 5) + f + e + k + w[i];
                e = d;
                d = c;
                c = Integer.rotateLeft(bb, 30);
                bb = a;
                a = t;
            }
            h0 += a;
            h1 += bb;
            h2 += c;
            h3 += d;
            h4 += e;
        }
        byte[] out = new byte[20];
        int[] h = {h0, h1, h2, h3, h4};
        for (int i = 0; i < 5; i++) {
            out[4 * i] = (byte) (h[i] >>> 24);
            out[4 * i + 1] = (byte) (h[i] >>> 16);
            out[4 * i + 2] = (byte) (h[i] >>> 8);
            out[4 * i + 3] = (byte) h[i];
        }
        return out;
    }
}
