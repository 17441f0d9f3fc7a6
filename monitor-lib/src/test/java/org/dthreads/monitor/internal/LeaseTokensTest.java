package org.dthreads.monitor.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.math.BigInteger;
import java.util.concurrent.ThreadLocalRandom;
import org.dthreads.ThreadClass;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.junit.jupiter.api.Test;

/** Issue 15 §4: lease tokens are unpredictable from the tokens a peer has seen. */
class LeaseTokensTest {
    private static final long REMOTE = ThreadClass.of(0x7171, 3);

    /** The reference implementation's vector for an 8-byte message: key 00..0f, message 00..07. */
    @Test
    void sipHashMatchesTheReferenceVector() {
        assertEquals(0x93f5f5799a932462L, LeaseTokens.sipHash24(0x0706050403020100L, 0x0f0e0d0c0b0a0908L,
                0x0706050403020100L));
    }

    /**
     * A peer that saw one token predicts the next one a server thread hands out if tokens come from
     * ThreadLocalRandom (its output is an invertible mix of a seed that advances by a constant).
     */
    @Test
    void aSeenTokenDoesNotGiveAwayTheNextOneOfTheSameServerThread() {
        long sample = ThreadLocalRandom.current().nextLong();
        assertEquals(successorFromThreadLocalRandom(sample), ThreadLocalRandom.current().nextLong(),
                "the predictor knows this JDK's ThreadLocalRandom (else this test proves nothing)");
        Object a = new Object();
        Object b = new Object();
        long seen = RemoteMonitorSite.enter(a, REMOTE, "peer-a", 60_000);
        long next = RemoteMonitorSite.enter(b, REMOTE, "peer-b", 60_000);
        try {
            assertNotEquals(successorFromThreadLocalRandom(seen), next, "the next token was predictable");
        } finally {
            RemoteMonitorSite.exit(seen);
            RemoteMonitorSite.exit(next);
        }
    }

    private static final long GAMMA = 0x9e3779b97f4a7c15L;
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    /** What ThreadLocalRandom.nextLong() returns after {@code output} on the same thread (JDK 17's generator). */
    private static long successorFromThreadLocalRandom(long output) {
        long seed = unmix64(output);
        return mix64(seed + (Thread.currentThread().getId() << 1) + GAMMA);
    }

    private static long mix64(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    private static long unmix64(long z) {
        z = z ^ (z >>> 33); // a shift by 33 of 64 bits is its own inverse
        z = z * inverse(0xc4ceb9fe1a85ec53L);
        z = z ^ (z >>> 33);
        z = z * inverse(0xff51afd7ed558ccdL);
        return z ^ (z >>> 33);
    }

    private static long inverse(long odd) {
        return new BigInteger(Long.toUnsignedString(odd)).modInverse(TWO_64).longValue();
    }
}
