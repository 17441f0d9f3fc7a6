package org.dthreads.monitor.internal;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 20 §2: thread T was interrupted while suspended in an outgoing call; the interrupt was kept for its class
 * and forwarded along the call. When T's call returns, T waits (bounded) for the forward's answer before deciding
 * whether the interrupt is its own. Meanwhile another thread's {@code T.isInterrupted()} must not read false: T is
 * no longer suspended, and its status is not set yet. (A forward whose answer never comes stands in for a slow
 * one; the test ends it by counting the latch down.)
 */
@Timeout(value = 30, unit = SECONDS)
class InterruptStatusWhileCallEndsTest {

    @Test
    void aThreadDecidingWhetherAKeptInterruptIsItsOwnReadsInterrupted() throws Exception {
        CountDownLatch suspended = new CountDownLatch(1);
        CountDownLatch forwardAnswered = new CountDownLatch(1);
        AtomicBoolean ownStatusAfterCall = new AtomicBoolean();
        Thread t = new Thread(() -> {
            Actor me = Actor.current(); // here: Awaitility evaluates conditions on its own thread
            InterruptRouting.beginOutgoingCall();
            suspended.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> me.classInterruptPending.get());
            me.interruptForward = forwardAnswered; // a forward still travelling
            InterruptRouting.endOutgoingCall(); // waits for the forward's answer
            ownStatusAfterCall.set(Thread.currentThread().isInterrupted());
        }, "ending-call");
        t.setDaemon(true);
        t.start();
        suspended.await(10, SECONDS);
        InterruptRouting.interrupt(t); // kept for the class (no wait of it here, no target to forward to)
        await().atMost(Duration.ofSeconds(10)).until(() -> InterruptRouting.ENDING.containsKey(t)
                || t.getState() == Thread.State.TERMINATED);
        // the call has ended: t is out of SUSPENDED, deciding
        for (int i = 0; i < 1000; i++) {
            assertTrue(InterruptStatus.isInterrupted(t), "t.isInterrupted() read false while its call ended");
        }
        forwardAnswered.countDown(); // the forward found no wait: the interrupt is t's own
        t.join(10_000);
        assertTrue(ownStatusAfterCall.get(), "the kept interrupt became t's status");
    }
}
