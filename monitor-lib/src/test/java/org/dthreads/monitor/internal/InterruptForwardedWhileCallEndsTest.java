package org.dthreads.monitor.internal;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.dthreads.monitor.spi.RemoteMonitorTransport;
import org.dthreads.monitor.spi.RemoteMonitors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The flake of {@code VirtualThreadsTest.anInterruptOfAVirtualThreadInACallEndsItsClasssWaitAtTheCallee*}
 * ("interrupted; status true"), with its interleaving forced. Thread T is suspended in a call to a peer; an
 * interrupter keeps the interrupt for T's class and forwards it; the forward reaches the peer's wait of the class,
 * which throws, so T's call returns, and T waits for the forward's answer before deciding whether the interrupt is
 * its own. The interrupter, descheduled until then, finds T's call ended. It must not also give the interrupt to
 * T: the forward was delivered, T's status stays clear (delivered once).
 */
@Timeout(value = 30, unit = SECONDS)
class InterruptForwardedWhileCallEndsTest {

    /** A stub of the peer: only {@link Peer}'s transport handles it. */
    static final class PeerStub {
    }

    /** The peer: its wait of the class takes the forward (it arrives), answers DELIVERED once released. */
    static final class Peer implements RemoteMonitorTransport {
        final CountDownLatch arrived = new CountDownLatch(1);
        final CountDownLatch answer = new CountDownLatch(1);
        final AtomicInteger forwards = new AtomicInteger();

        @Override
        public boolean handles(Object target) {
            return target instanceof PeerStub;
        }

        @Override
        public long call(Object target, int op, long threadClass, long token, long arg, int nanos)
                throws InterruptedException {
            assertEquals(RemoteMonitorSite.INTERRUPT, op);
            forwards.incrementAndGet();
            arrived.countDown(); // the wait there throws: the call of T returns
            answer.await(10, SECONDS); // the answer still travels back
            return InterruptForwarding.DELIVERED;
        }

        @Override
        public String describe(Object target) {
            return "the test's peer";
        }
    }

    @Test
    void anInterruptTheCalleeTookIsNotAlsoGivenToTheCallerWhoseCallEndedBeforeTheInterrupterWentOn()
            throws Exception {
        Peer peer = new Peer();
        RemoteMonitors.register(peer);
        CountDownLatch suspended = new CountDownLatch(1);
        AtomicReference<Boolean> statusAfterCall = new AtomicReference<>();
        Thread t = new Thread(() -> {
            InterruptRouting.beginOutgoingCall(new PeerStub());
            suspended.countDown();
            try {
                peer.arrived.await(10, SECONDS); // the call returns once the forward ended the wait there
            } catch (InterruptedException e) {
                statusAfterCall.set(Boolean.TRUE);
                return;
            }
            InterruptRouting.endOutgoingCall(); // waits for the forward's answer
            statusAfterCall.set(Thread.currentThread().isInterrupted());
        }, "caller");
        t.setDaemon(true);
        t.start();
        try {
            assertTrue(suspended.await(10, SECONDS));
            // the interrupter is descheduled right after starting the forward, until T's call has ended and T
            // waits for the forward's answer (it is in ENDING)
            InterruptRouting.forwardStartedHook = () -> await().atMost(Duration.ofSeconds(10))
                    .until(() -> InterruptRouting.ENDING.containsKey(t));
            InterruptRouting.interrupt(t);
            InterruptRouting.forwardStartedHook = null;
            peer.answer.countDown(); // the answer: DELIVERED
            t.join(10_000);
            assertFalse(t.isAlive());
            assertEquals(1, peer.forwards.get());
            assertEquals(Boolean.FALSE, statusAfterCall.get(),
                    "the interrupt was delivered at the callee and again as the caller's status");
        } finally {
            InterruptRouting.forwardStartedHook = null;
            peer.answer.countDown();
            RemoteMonitors.unregister(peer);
        }
    }
}
