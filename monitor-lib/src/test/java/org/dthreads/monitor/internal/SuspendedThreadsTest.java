package org.dthreads.monitor.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.lang.ref.WeakReference;
import java.time.Duration;
import org.dthreads.monitor.spi.OutgoingCalls;
import org.junit.jupiter.api.Test;

/**
 * Issue 15 §4: the map of threads suspended in outgoing calls does not retain a thread that died while
 * marked suspended (an adapter's begin() whose end() never came on that thread).
 */
class SuspendedThreadsTest {

    @Test
    void aThreadThatDiesWhileSuspendedIsCollectable() throws Exception {
        int before = InterruptRouting.SUSPENDED.size();
        Object[] target = {new Object()};
        Thread t = new Thread(() -> OutgoingCalls.begin(target[0]), "dies-suspended");
        t.start();
        t.join();
        assertNotNull(InterruptRouting.SUSPENDED.values(), "the map is readable");
        WeakReference<Thread> thread = new WeakReference<>(t);
        WeakReference<Object> callTarget = new WeakReference<>(target[0]);
        t = null;
        target[0] = null;
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).until(() -> {
            System.gc();
            return thread.get() == null && callTarget.get() == null;
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> InterruptRouting.SUSPENDED.size() <= before);
        assertEquals(0, InterruptRouting.SUSPENDED.values().stream().filter(a -> a.thread != null
                && "dies-suspended".equals(a.thread.getName())).count());
    }

    @Test
    void aLiveSuspendedThreadIsFoundAndRemovedWhenItsCallEnds() throws Exception {
        OutgoingCalls.begin();
        try {
            assertEquals(Actor.current(), InterruptRouting.SUSPENDED.get(Thread.currentThread()));
        } finally {
            OutgoingCalls.end();
        }
        assertEquals(null, InterruptRouting.SUSPENDED.get(Thread.currentThread()));
    }
}
