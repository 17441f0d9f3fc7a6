package org.dthreads.rmi.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.dthreads.internal.KernelLink;
import org.junit.jupiter.api.Test;

/** The text of a JRMP site hello's answer, and a server's answer to malformed hellos (never an exception). */
class SiteHellosTest {

    @Test
    void anAnswerIsEightAndSixteenHexDigits() {
        assertEquals("0000002a:5d2c9e0411f3a7b6", SiteHellos.format(0x2a, 0x5d2c9e0411f3a7b6L));
        assertEquals("ffffffff:ffffffffffffffff", SiteHellos.format(-1, -1L));
        assertArrayEquals(new long[] {0x2a, 0x5d2c9e0411f3a7b6L}, SiteHellos.parse("0000002a:5d2c9e0411f3a7b6"));
        assertArrayEquals(new long[] {0xffffffffL, -1L}, SiteHellos.parse("ffffffff:ffffffffffffffff"));
    }

    @Test
    void malformedAnswersAreRefused() {
        for (String bad : new String[] {null, "", "0000002a:5d2c9e0411f3a7b", "0000002a-5d2c9e0411f3a7b6",
                "00000000:5d2c9e0411f3a7b6", "0000002a:0000000000000000", "-000002a:5d2c9e0411f3a7b6",
                "0000002a:+d2c9e0411f3a7b6", "0000002g:5d2c9e0411f3a7b6", "0000002a:5d2c9e0411f3a7b6\n"}) {
            assertNull(SiteHellos.parse(bad), String.valueOf(bad));
        }
    }

    @Test
    void aServerAnswersEveryHelloWithItsOwnIdentity() {
        String own = SiteHellos.format(KernelLink.siteId(), KernelLink.siteIncarnation());
        assertEquals(own, SiteHellos.answer(0x0000002a00000007L, 0x1234, "127.0.0.1"));
        assertEquals(own, SiteHellos.answer(0, 0x1234, "127.0.0.1"), "invalid class: logged, answered");
        assertEquals(own, SiteHellos.answer(0x0000002a00000007L, 0, "127.0.0.1"), "no incarnation: logged, answered");
    }
}
