package org.dthreads.monitor.internal.rewriter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.security.MessageDigest;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The rewriter's SHA-1 (issue 16) is the JDK's, at every length around the block boundaries. */
class Sha1Test {

    @Test
    void sameDigestAsTheJdksForEveryLengthUpTo300AndSomeLargeOnes() throws Exception {
        Random random = new Random(16);
        for (int n : new int[] {0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 4096, 65_537}) {
            check(random, n);
        }
        for (int n = 0; n <= 300; n++) {
            check(random, n);
        }
    }

    private static void check(Random random, int n) throws Exception {
        byte[] data = new byte[n];
        random.nextBytes(data);
        assertArrayEquals(MessageDigest.getInstance("SHA-1").digest(data), Sha1.digest(data), "length " + n);
    }
}
