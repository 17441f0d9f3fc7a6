package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import org.dthreads.ThreadClass;
import org.junit.jupiter.api.Test;

/** The site hello service context 0x44540002: bytes, both byte orders, malformed bodies, the flag. */
class SiteHelloContextTest {

    @Test
    void bigEndianLayout() {
        assertEquals("000000000000002a5d2c9e0411f3a7b6",
                HexFormat.of().formatHex(SiteHelloContext.encode(0x2a, 0x5d2c9e0411f3a7b6L)));
        assertNull(SiteHelloContext.problem(SiteHelloContext.encode(0x2a, 0x5d2c9e0411f3a7b6L)));
    }

    @Test
    void littleEndianWithAnyPaddingIsWellFormed() {
        assertNull(SiteHelloContext.problem(HexFormat.of().parseHex("01ac6d502a000000b6a7f311049e2c5d")));
    }

    @Test
    void malformedBodiesAreNamedAndObservingThemThrowsNothing() {
        String[] bad = {"", "00", "000000000000002a5d2c9e0411f3a7", "000000000000002a5d2c9e0411f3a7b600",
                "020000000000002a5d2c9e0411f3a7b6", "00000000000000005d2c9e0411f3a7b6",
                "000000000000002a0000000000000000"};
        for (String hex : bad) {
            byte[] body = HexFormat.of().parseHex(hex);
            assertTrue(SiteHelloContext.problem(body) != null, hex);
            SiteHelloContext.observe(body, "test peer");
        }
        SiteHelloContext.observe(null, "test peer");
    }

    @Test
    void theIdentityContextStaysSixteenBytesAndDecodesTheSameWithTheFlag() {
        long cls = ThreadClass.of(0x2a, 7);
        byte[] flagged = IdentityContext.encode(cls);
        flagged[1] = SiteHelloContext.FLAG;
        assertTrue(SiteHelloContext.flagged(flagged));
        assertEquals(cls, IdentityContext.decode(flagged), "receivers ignore the padding");
        assertFalse(SiteHelloContext.flagged(IdentityContext.encode(cls)));
        assertFalse(SiteHelloContext.flagged(SiteHelloContext.identityBody(cls, null)), "no peer: no hello");
    }

    @Test
    void aHelloIsDueOnceForANewPeerThenNotUntilTheRefreshPeriod() {
        Object peer = "test peer " + System.nanoTime();
        assertTrue(SiteHelloContext.flagged(SiteHelloContext.identityBody(ThreadClass.of(1, 1), peer)));
        assertFalse(SiteHelloContext.flagged(SiteHelloContext.identityBody(ThreadClass.of(1, 1), peer)));
    }
}
