package org.dthreads.monitor;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout;

/**
 * Exit must never throw where javac's handler covers the {@code monitorexit}: that handler re-runs the
 * exit on any exception and would loop for ever. A stack overflow in the middle of nested synchronized
 * blocks must leave the monitor free and the program alive.
 */
@Timeout(value = 60, unit = SECONDS)
class ExitRobustnessTest {

    private static int handlerRetries;

    /**
     * What javac emits for {@code synchronized (lock) { return recurse() + 1; }} once the rewriter replaced
     * the instructions: the handler's range covers both exits, including its own (modelled as a retry loop
     * that counts retries; it makes no call besides the exit, as in javac's code).
     */
    private static int recurse(Object lock, int depth) {
        Monitors.enter(lock);
        try {
            int result = recurse(lock, depth + 1) + 1;
            Monitors.exit(lock);
            return result;
        } catch (Throwable t) {
            for (;;) {
                try {
                    Monitors.exit(lock);
                    break;
                } catch (Throwable again) {
                    if (++handlerRetries > 1_000) {
                        break;
                    }
                }
            }
            throw t;
        }
    }

    @RepeatedTest(5)
    void stackOverflowInsideNestedBlocksLeavesTheMonitorFree() throws Exception {
        Object lock = new Object();
        handlerRetries = 0;
        boolean overflowed = false;
        try {
            recurse(lock, 0);
        } catch (StackOverflowError expected) {
            overflowed = true;
        }
        assertTrue(overflowed);
        assertEquals(0, handlerRetries, "exit threw into javac's handler");
        // a stack overflow may leave one level as a debt, paid by this thread's next monitor operation
        Monitors.enter(new Object());
        assertFalse(Monitors.holdsLock(lock), "the monitor is still held after the stack unwound");
        AtomicInteger acquired = new AtomicInteger();
        Thread other = new Thread(() -> {
            Monitors.enter(lock);
            acquired.incrementAndGet();
            Monitors.exit(lock);
        });
        other.start();
        other.join(SECONDS.toMillis(30));
        assertEquals(1, acquired.get(), "another thread could not take the monitor");
    }
}
