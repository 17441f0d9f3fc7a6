package org.dthreads.monitor.internal.rewriter;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.dthreads.monitor.internal.rewriter.MonitorRewriterTest.call;
import static org.dthreads.monitor.internal.rewriter.MonitorRewriterTest.newRewritten;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.dthreads.monitor.internal.rewriter.fixtures.DeepMonitors;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout;

/**
 * Rewritten code that overflows the stack inside synchronized code leaves every monitor free once the stack
 * has unwound: exits that failed inside the runtime, and exits whose own call overflowed
 * ({@link ExitOverflowGuard}), are recorded and paid by the next operation. Where an overflow lands is up to
 * the JIT and the load, so each shape runs several times; {@link ExitOverflowGuardTest} forces the case of an
 * exit call that overflows.
 */
@Timeout(value = 60, unit = SECONDS)
class OverflowingExitsTest {

    @RepeatedTest(8)
    void aBlockAtEveryLevel() throws Exception {
        Object rewritten = newRewritten(DeepMonitors.class);
        assertEquals(true, call(rewritten, "overflowInBlocks"));
        assertEquals(true, call(rewritten, "allFree"), "a monitor is still held after the stack unwound");
    }

    @RepeatedTest(8)
    void aSynchronizedMethodAtEveryLevel() throws Exception {
        Object rewritten = newRewritten(DeepMonitors.class);
        assertEquals(true, call(rewritten, "overflowInSynchronizedMethods"));
        assertEquals(true, call(rewritten, "allFree"), "a monitor is still held after the stack unwound");
    }

    @RepeatedTest(8)
    void twoNestedBlocksAtEveryLevel() throws Exception {
        Object rewritten = newRewritten(DeepMonitors.class);
        assertEquals(true, call(rewritten, "overflowInNestedBlocks"));
        assertEquals(true, call(rewritten, "allFree"), "a monitor is still held after the stack unwound");
    }
}
