package org.dthreads.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The text of a site hello's answer, the same over JRMP and IIOP. */
class SiteHelloAnswerTest {

    @Test
    void anAnswerIsEightAndSixteenHexDigits() {
        assertEquals("0000002a:5d2c9e0411f3a7b6", SiteHelloAnswer.format(0x2a, 0x5d2c9e0411f3a7b6L));
        assertEquals("ffffffff:ffffffffffffffff", SiteHelloAnswer.format(-1, -1L));
        assertArrayEquals(new long[] {0x2a, 0x5d2c9e0411f3a7b6L}, SiteHelloAnswer.parse("0000002a:5d2c9e0411f3a7b6"));
        assertArrayEquals(new long[] {0xffffffffL, -1L}, SiteHelloAnswer.parse("ffffffff:ffffffffffffffff"));
    }

    @Test
    void malformedAnswersAreRefused() {
        for (String bad : new String[] {null, "", "0000002a:5d2c9e0411f3a7b", "0000002a-5d2c9e0411f3a7b6",
                "00000000:5d2c9e0411f3a7b6", "0000002a:0000000000000000", "-000002a:5d2c9e0411f3a7b6",
                "0000002a:+d2c9e0411f3a7b6", "0000002g:5d2c9e0411f3a7b6", "0000002a:5d2c9e0411f3a7b6\n"}) {
            assertNull(SiteHelloAnswer.parse(bad), String.valueOf(bad));
        }
    }

    @Test
    void aMalformedHelloIsLoggedAndStillAnsweredAndAMalformedAnswerOnlyLogged() {
        java.util.List<String> lines = new java.util.ArrayList<>();
        RateLimitedLog log = new RateLimitedLog((level, message) -> lines.add(message), 0L, System::nanoTime);
        String own = SiteHelloAnswer.format(KernelLink.siteId(), KernelLink.siteIncarnation());
        assertEquals(own, SiteHelloAnswer.serve(0, 0x1234, "peer p", log, "x-"));
        assertEquals(own, SiteHelloAnswer.serve(0x0000002a00000007L, 0, "peer p", log, "x-"));
        SiteHelloAnswer.read("garbage", "server s", log, "x-");
        assertEquals(3, lines.size(), lines.toString());
        assertTrue(lines.get(0).contains("malformed site hello from peer p"), lines.get(0));
        assertTrue(lines.get(2).contains("malformed site hello answer from server s: garbage"), lines.get(2));
    }
}
