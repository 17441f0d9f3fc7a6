package org.dthreads.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RateLimitedLogTest {

    private final AtomicLong clock = new AtomicLong();
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final RateLimitedLog log = new RateLimitedLog((level, line) -> lines.add(level + " " + line), 100, clock::get);

    @Test
    void oneLinePerKeyAndIntervalWithTheSuppressedCount() {
        assertTrue(log.warn("k", "first"));
        assertFalse(log.warn("k", "second"));
        assertFalse(log.warn("k", "third"));
        assertTrue(log.warn("other", "independent key"));
        clock.addAndGet(100);
        assertTrue(log.warn("k", "fourth"));
        assertEquals(List.of("WARNING first", "WARNING independent key",
                "WARNING fourth (2 similar lines suppressed since the last one)"), lines);
    }

    @Test
    void warnOnceIsNotKeyedNorLimited() {
        log.warnOnce("orb 1 kept");
        log.warnOnce("orb 1 kept");
        assertEquals(List.of("WARNING orb 1 kept", "WARNING orb 1 kept"), lines);
    }

    @Test
    void aFailingSinkNeverReachesTheCaller() {
        RateLimitedLog broken = new RateLimitedLog((level, line) -> {
            throw new IllegalStateException("sink down");
        }, 0, clock::get);
        assertFalse(broken.error("k", "x"));
        broken.info("y");
        broken.warnOnce("z");
    }
}
