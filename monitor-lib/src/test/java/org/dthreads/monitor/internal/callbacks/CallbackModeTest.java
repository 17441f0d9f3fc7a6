package org.dthreads.monitor.internal.callbacks;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CallbackModeTest {

    @Test
    void originalSelectsTheModeAndEverythingElseKeepsTakeOver() {
        assertTrue(CallbackMode.parse("original"));
        assertTrue(CallbackMode.parse(" ORIGINAL "));
        assertFalse(CallbackMode.parse(null));
        assertFalse(CallbackMode.parse(""));
        assertFalse(CallbackMode.parse("takeover"));
        assertFalse(CallbackMode.parse("orignal")); // logged, never thrown
    }

    @Test
    void theDefaultModeIsTakeOver() {
        assertFalse(CallbackMode.ORIGINAL, "this test JVM runs without -Ddthreads.callbacks");
    }
}
