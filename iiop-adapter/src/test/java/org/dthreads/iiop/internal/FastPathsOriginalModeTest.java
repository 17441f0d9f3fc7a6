package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The warning for an ORB that {@code -Ddthreads.callbacks=original} cannot reach (it has no fast path). */
class FastPathsOriginalModeTest {

    @Test
    void inTakeOverModeAnOrbWithoutFastPathIsNotWorthALine() {
        assertNull(FastPaths.originalModeOff(false, JacorbFastPath.INIT_INFO_CLASS, "-Ddthreads.iiop.path=portable"));
    }

    @Test
    void inOriginalModeTheLineNamesTheOrbTheReasonAndWhatHappensInstead() {
        String line = FastPaths.originalModeOff(true, JacorbFastPath.INIT_INFO_CLASS,
                "JacORB is not patched by the dthreads agent (org.jacorb.orb.Delegate.invoke_internal is not patched)");
        assertTrue(line.contains("-Ddthreads.callbacks=original has no effect on this ORB (" + JacorbFastPath.INIT_INFO_CLASS + ")")
                && line.contains("is not patched by the dthreads agent")
                && line.contains("callbacks run in take-over mode"), line);
    }
}
