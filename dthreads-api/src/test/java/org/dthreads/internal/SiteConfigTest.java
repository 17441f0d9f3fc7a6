package org.dthreads.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SiteConfigTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "42, 42",
        "4294967295, -1",
        "-1, -1",
        "2147483648, -2147483648",
        "0x2a, 42",
        "0XFFFFFFFF, -1",
        "' 7 ', 7",
    })
    void acceptsDecimalAndHexSiteIds(String text, int expected) {
        SiteConfig config = SiteConfig.from(text, new Random(1));
        assertTrue(config.configured());
        assertEquals(expected, config.siteId());
        assertNull(config.problem());
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "0x0", "abc", "4294967296", "-2147483649", "0x", "0x123456789", "1.5"})
    void rejectsBadSiteIdsWithAClearProblemAndARandomId(String text) {
        SiteConfig config = SiteConfig.from(text, new Random(1));
        assertFalse(config.configured());
        assertNotEquals(0, config.siteId());
        assertNotNull(config.problem());
        assertTrue(config.problem().contains("-Ddthreads.site=" + text), config.problem());
    }

    @Test
    void withoutConfigurationTheSiteIdIsRandomAndNeverZero() {
        SiteConfig config = SiteConfig.from(null, new ZeroesFirst(3));
        assertFalse(config.configured());
        assertNotEquals(0, config.siteId());
        assertNotEquals(0, config.counterOrigin());
        assertNotEquals(0L, config.incarnation());
    }

    @Test
    void eachStartIsANewIncarnationWithANewCounterOrigin() {
        Random shared = new Random(12345);
        SiteConfig first = SiteConfig.from("42", shared);
        SiteConfig restart = SiteConfig.from("42", shared);
        assertEquals(first.siteId(), restart.siteId());
        assertNotEquals(first.incarnation(), restart.incarnation());
        assertNotEquals(first.counterOrigin(), restart.counterOrigin());
    }

    @Test
    void aRestartedUnconfiguredSiteGetsANewSiteId() {
        Random shared = new Random(6789);
        assertNotEquals(SiteConfig.from(null, shared).siteId(), SiteConfig.from(null, shared).siteId());
    }

    /** A Random whose first {@code zeroes} draws are 0, to prove 0 is never accepted. */
    private static final class ZeroesFirst extends Random {
        private int zeroes;

        ZeroesFirst(int zeroes) {
            super(99);
            this.zeroes = zeroes;
        }

        @Override
        public int nextInt() {
            return zeroes-- > 0 ? 0 : super.nextInt();
        }

        @Override
        public long nextLong() {
            return zeroes-- > 0 ? 0 : super.nextLong();
        }
    }
}
