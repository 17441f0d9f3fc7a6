package org.dthreads.monitor.internal.callbacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.junit.jupiter.api.Test;

/**
 * {@link CallbackOrbWait} with an ORB-like reply wait (JacORB's {@code synchronized (lock) { while (!ready)
 * lock.wait(); }}, left when a callback is queued, callbacks run outside {@code lock}): callbacks handed by server
 * threads run on the waiting caller, none is lost to a wake-up race, interrupts are kept as by the mailbox.
 */
class CallbackOrbWaitTest {

    private static final AtomicLong NEXT_CLASS = new AtomicLong(0x2000);
    private final long threadClass = ThreadClass.of(0x7e58, (int) NEXT_CLASS.incrementAndGet());

    /** An ORB's reply placeholder: the reply, set by a "reader" under {@code lock}. */
    private static final class Placeholder {
        final Object lock = new Object();
        boolean ready; // guarded by lock
        Object reply; // guarded by lock

        void replyReceived(Object value) {
            synchronized (lock) {
                reply = value;
                ready = true;
                lock.notifyAll();
            }
        }

        /** The ORB's wait as the patched JacORB makes it. */
        Object await() {
            CallbackOrbWait wait = CallbackOrbWait.current();
            for (;;) {
                synchronized (lock) {
                    boolean callback = false;
                    while (!ready) {
                        wait.waitingOn(lock);
                        if (wait.callbackQueued()) {
                            callback = true;
                            break;
                        }
                        try {
                            lock.wait();
                        } catch (InterruptedException e) {
                            wait.interrupted();
                        }
                    }
                    if (!callback) {
                        return reply;
                    }
                }
                wait.runQueued();
            }
        }
    }

    private Thread caller(Placeholder p, AtomicReference<Object> result) {
        Thread t = new Thread(() -> {
            try {
                result.set(CallbackOrbWait.call(threadClass, p::await));
            } catch (Throwable e) {
                result.set(e);
            }
        }, "original");
        t.start();
        Awaitility.await().atMost(5, TimeUnit.SECONDS).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                .until(() -> CallbackMailbox.waitingFor(threadClass) != null);
        return t;
    }

    @Test
    void everyCallbackRunsOnTheWaitingCallerWithoutALostWakeUp() throws Throwable {
        for (int i = 0; i < 300; i++) {
            Placeholder p = new Placeholder();
            AtomicReference<Object> result = new AtomicReference<>();
            Thread original = caller(p, result);
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            AtomicLong bound = new AtomicLong();
            long t0 = System.nanoTime();
            Object r = CallbackHandOff.offer(threadClass, () -> {
                ranOn.set(Thread.currentThread());
                bound.set(DThreads.currentClass());
                assertNull(CallbackOrbWait.current(), "not armed inside a callback");
                return "cb" + 1;
            });
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2), "taken without waiting out a lost wake-up");
            assertEquals("cb1", r);
            assertSame(original, ranOn.get(), "ran on the waiting caller");
            assertEquals(threadClass, bound.get());
            p.replyReceived("reply" + i);
            original.join(5000);
            assertFalse(original.isAlive());
            assertEquals("reply" + i, result.get());
            assertNull(CallbackMailbox.waitingFor(threadClass), "closed");
        }
    }

    @Test
    void anOwnReplyDuringACallbackIsReturnedWhenTheCallbackEnds() throws Throwable {
        Placeholder p = new Placeholder();
        AtomicReference<Object> result = new AtomicReference<>();
        Thread original = caller(p, result);
        List<String> ran = new CopyOnWriteArrayList<>();
        Thread[] servers = new Thread[3];
        for (int i = 0; i < servers.length; i++) {
            String name = "cb" + i;
            servers[i] = new Thread(() -> {
                try {
                    CallbackHandOff.offer(threadClass, () -> {
                        ran.add(name);
                        if (name.equals("cb0")) {
                            p.replyReceived("reply"); // the own reply arrives during a callback
                        }
                        return null;
                    });
                } catch (Throwable e) {
                    ran.add(e.toString());
                }
            });
            servers[i].start();
            servers[i].join(5000);
        }
        original.join(5000);
        assertFalse(original.isAlive());
        assertEquals("reply", result.get());
        assertEquals(List.of("cb0", "cb1", "cb2").subList(0, ran.size()), ran, "in order, on the caller while it waited");
        assertTrue(ran.contains("cb0"));
    }

    @Test
    void anInterruptWhileWaitingIsKeptAndSeenByTheNextCallbackAndOnReturn() throws Throwable {
        Placeholder p = new Placeholder();
        AtomicReference<Object> result = new AtomicReference<>();
        AtomicReference<Boolean> interruptedAtEnd = new AtomicReference<>();
        Thread original = new Thread(() -> {
            try {
                result.set(CallbackOrbWait.call(threadClass, p::await));
            } catch (Throwable e) {
                result.set(e);
            }
            interruptedAtEnd.set(Thread.currentThread().isInterrupted());
        }, "original");
        original.start();
        Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> original.getState() == Thread.State.WAITING);
        original.interrupt();
        AtomicReference<Boolean> inCallback = new AtomicReference<>();
        CallbackHandOff.offer(threadClass, () -> {
            inCallback.set(Thread.interrupted()); // taken here: delivered once
            return null;
        });
        assertEquals(Boolean.TRUE, inCallback.get(), "the callback starts with the interrupt status set");
        original.interrupt(); // again, and not taken this time
        Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> original.getState() == Thread.State.WAITING);
        p.replyReceived("reply");
        original.join(5000);
        assertEquals("reply", result.get());
        assertEquals(Boolean.TRUE, interruptedAtEnd.get(), "re-asserted on return");
    }
}
