package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HexFormat;
import java.util.Random;
import org.dthreads.ThreadClass;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdentityContextTest {

    private static final HexFormat HEX = HexFormat.of();
    /** site 0x0000002a, thread 0x00000007: the example of docs/wire-format.md. */
    private static final long EXAMPLE = ThreadClass.of(0x2a, 7);

    @Test
    void idIsDT1() {
        assertEquals(0x44540001, IdentityContext.ID);
    }

    @Test
    void bigEndianMatchesTheDocumentedBytes() {
        byte[] body = IdentityContext.encode(EXAMPLE);
        assertEquals("00000000000000000000002a00000007", HEX.formatHex(body));
        assertEquals(EXAMPLE, IdentityContext.decode(body));
        assertNull(IdentityContext.problem(body));
    }

    @Test
    void littleEndianMatchesTheDocumentedBytes() {
        byte[] body = IdentityContext.encode(EXAMPLE, true);
        assertEquals("0100000000000000070000002a000000", HEX.formatHex(body));
        assertEquals(EXAMPLE, IdentityContext.decode(body));
    }

    @Test
    void paddingIsIgnoredInBothOrders() {
        byte[] le = HEX.parseHex("01" + "deadbeefcafeba" + "07000000" + "2a000000");
        byte[] be = HEX.parseHex("00" + "ffffffffffffff" + "0000002a" + "00000007");
        assertEquals(EXAMPLE, IdentityContext.decode(le));
        assertEquals(EXAMPLE, IdentityContext.decode(be));
    }

    @Test
    void decodesABodyCapturedFromOmniOrb() {
        // omniORBpy 4.3.3 cdrMarshal(TC_longlong, 0x0000002a00000007) on x86-64: padding is leftover memory
        assertEquals(EXAMPLE, IdentityContext.decode(HEX.parseHex("01ac6d50317f0000070000002a000000")));
    }

    @Test
    void roundTripsRandomClassesWithGarbagePadding() {
        Random r = new Random(42);
        for (int i = 0; i < 10_000; i++) {
            long c = ThreadClass.of(r.nextInt() | 1, r.nextInt() | 1);
            for (boolean little : new boolean[] {false, true}) {
                byte[] body = IdentityContext.encode(c, little);
                for (int p = 1; p < 8; p++) {
                    body[p] = (byte) r.nextInt();
                }
                assertEquals(c, IdentityContext.decode(body));
            }
        }
    }

    @Test
    void extremesOfTheLayout() {
        long max = ThreadClass.of(-1, -1);
        assertEquals("0000000000000000ffffffffffffffff", HEX.formatHex(IdentityContext.encode(max)));
        assertEquals(max, IdentityContext.decode(IdentityContext.encode(max)));
        assertEquals(max, IdentityContext.decode(IdentityContext.encode(max, true)));
        long min = ThreadClass.of(1, 1);
        assertEquals(min, IdentityContext.decode(IdentityContext.encode(min, true)));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "",                                                      // empty
        "00",                                                    // byte-order octet only
        "00000000000000000000002a000000",                        // truncated: 15 bytes
        "00000000000000000000002a0000000700",                    // over-long: 17 bytes
        "00000000000000000000002a000000070000000000000000",      // over-long: 24 bytes
        "02000000000000000000002a00000007",                      // unknown byte-order octet
        "ff000000000000000000002a00000007",                      // unknown byte-order octet
        "00000000000000000000000000000000",                      // zero class
        "01000000000000000000000000000000",                      // zero class, little-endian
        "00000000000000000000000000000007",                      // site id 0
        "00000000000000000000002a00000000",                      // thread id 0
        "0100000000000000000000002a000000",                      // LE: thread 0x2a000000<<.. site 0
    })
    void malformedShapesDecodeToNone(String hex) {
        byte[] body = HEX.parseHex(hex);
        assertEquals(ThreadClass.NONE, IdentityContext.decode(body));
        assertNotNull(IdentityContext.problem(body));
    }

    @Test
    void nullIsMalformed() {
        assertEquals(ThreadClass.NONE, IdentityContext.decode(null));
        assertNotNull(IdentityContext.problem(null));
    }

    @Test
    void encodeWritesZeroPadding() {
        byte[] body = IdentityContext.encode(EXAMPLE, true);
        assertArrayEquals(new byte[7], java.util.Arrays.copyOfRange(body, 1, 8));
    }
}
