package org.dthreads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ThreadClassTest {

    @ParameterizedTest(name = "site {0}, thread {1}")
    @CsvSource({
        "1, 1",
        "42, 7",
        "-1, -1",                       // 0xffffffff both halves: the largest unsigned values
        "-2147483648, -2147483648",     // 0x80000000: sign bits must not leak between halves
        "2147483647, 1",
        "1, -1",
        "-1, 1",
    })
    void packsAndUnpacksBothHalves(int site, int thread) {
        long packed = ThreadClass.of(site, thread);
        assertEquals(site, ThreadClass.siteId(packed));
        assertEquals(thread, ThreadClass.threadId(packed));
        assertTrue(ThreadClass.isValid(packed));
        assertEquals(Integer.toUnsignedLong(site), packed >>> ThreadClass.SITE_SHIFT);
        assertEquals(Integer.toUnsignedLong(thread), packed & ThreadClass.THREAD_MASK);
    }

    @Test
    void layoutConstantsMatchTheWireFormat() {
        assertEquals(0x0000_002a_0000_0007L, ThreadClass.of(42, 7));
        assertEquals(0xffff_ffff_ffff_ffffL, ThreadClass.of(-1, -1));
        assertEquals(0x8000_0000_0000_0001L, ThreadClass.of(Integer.MIN_VALUE, 1));
        assertEquals(32, ThreadClass.SITE_SHIFT);
        assertEquals(0xffff_ffffL, ThreadClass.THREAD_MASK);
    }

    @Test
    void zeroHalvesAreRejectedAndNoneIsInvalid() {
        assertThrows(IllegalArgumentException.class, () -> ThreadClass.of(0, 1));
        assertThrows(IllegalArgumentException.class, () -> ThreadClass.of(1, 0));
        assertFalse(ThreadClass.isValid(ThreadClass.NONE));
        assertFalse(ThreadClass.isValid(0x0000_0001_0000_0000L), "thread half 0");
        assertFalse(ThreadClass.isValid(0x0000_0000_0000_0001L), "site half 0");
        assertEquals(0L, ThreadClass.NONE);
    }

    @Test
    void formatsFixedWidthUnsignedHex() {
        assertEquals("0000002a:00000007", ThreadClass.format(ThreadClass.of(42, 7)));
        assertEquals("ffffffff:80000000", ThreadClass.format(ThreadClass.of(-1, Integer.MIN_VALUE)));
        assertEquals("none", ThreadClass.format(ThreadClass.NONE));
    }
}
