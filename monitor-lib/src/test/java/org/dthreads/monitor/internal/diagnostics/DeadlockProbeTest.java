package org.dthreads.monitor.internal.diagnostics;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.dthreads.ThreadClass;
import org.dthreads.monitor.RemoteMonitorException;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.dthreads.monitor.spi.RemoteMonitorTransport;
import org.dthreads.monitor.spi.RemoteMonitors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The parts of the probe that need no second JVM: what makes an answer a cycle, the order every site logs it in,
 * the checks on a request, and the bounds on asking a peer that hangs or fails (through the transport SPI, with
 * transports of this test that handle only this test's target types). The chase itself across real JVMs:
 * interop-tests' {@code DeadlockWatchTest}.
 */
@Timeout(value = 60, unit = SECONDS)
class DeadlockProbeTest {
    private static final long A = ThreadClass.of(0x11, 1);
    private static final long B = ThreadClass.of(0x22, 2);
    private static final long C = ThreadClass.of(0x33, 3);

    private static WaitEdge edge(int site, long waiter, long owner) {
        return new WaitEdge(site, 100 + site, "host", waiter, 7, "t", "BLOCKED", "emulated", "com.acme.Node", site * 31,
                owner, 8, "thread \"o\"", "", false, List.of("com.acme.Node.lock(Node.java:1)"));
    }

    @Test
    void anAnswerIsACycleOnlyIfItsClassesCloseAChain() {
        assertTrue(DeadlockProbe.isCycle(List.of(edge(1, A, B), edge(2, B, C), edge(3, C, A))));
        assertFalse(DeadlockProbe.isCycle(List.of(edge(1, A, B), edge(2, B, C))), "open");
        assertFalse(DeadlockProbe.isCycle(List.of(edge(1, A, B), edge(2, C, A))), "a gap");
        assertFalse(DeadlockProbe.isCycle(List.of(edge(1, A, A))), "a class never waits for itself in a deadlock");
        assertFalse(DeadlockProbe.isCycle(List.of()));
        assertFalse(DeadlockProbe.isCycle(List.of(edge(1, A, B), edge(2, B, ThreadClass.NONE))), "owner unknown");
    }

    @Test
    void everyRotationOfACycleIsLoggedInTheSameOrderAndIsTheSameCycle() {
        List<WaitEdge> cycle = List.of(edge(1, B, C), edge(2, C, A), edge(3, A, B));
        List<WaitEdge> expected = DeadlockLog.canonical(cycle);
        assertEquals(A, expected.get(0).waiterClass(), "starts at the smallest class");
        for (int i = 0; i < cycle.size(); i++) {
            List<WaitEdge> rotated = new ArrayList<>(cycle.subList(i, cycle.size()));
            rotated.addAll(cycle.subList(0, i));
            assertEquals(expected, DeadlockLog.canonical(rotated));
            assertEquals(DeadlockLog.key(cycle), DeadlockLog.key(rotated));
        }
    }

    @Test
    void anAnswerIsParsedBackOrDroppedWhole() {
        List<WaitEdge> cycle = List.of(edge(1, A, B), edge(2, B, A));
        String text = cycle.get(0).toLine() + "\n" + cycle.get(1).toLine() + "\n";
        assertEquals(cycle, DeadlockProbe.parse(text));
        assertEquals(List.of(), DeadlockProbe.parse(""));
        assertEquals(List.of(), DeadlockProbe.parse(text + "not an edge\n"));
        assertEquals(List.of(), DeadlockProbe.parse((cycle.get(0).toLine() + "\n").repeat(DeadlockProbe.MAX_EDGES + 1)));
    }

    @Test
    void aRequestWithAnInvalidClassOrAnotherOperationIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> DeadlockProbe.serveText(RemoteMonitorSite.PROBE_EDGES, 0L, A, 1000, 4, "test"));
        assertThrows(IllegalArgumentException.class,
                () -> DeadlockProbe.serveText(RemoteMonitorSite.PROBE_EDGES, A, 5L, 1000, 4, "test"));
        assertThrows(IllegalArgumentException.class,
                () -> DeadlockProbe.serveText(RemoteMonitorSite.ENTER, A, B, 1000, 4, "test"));
        assertEquals("", DeadlockProbe.serveText(RemoteMonitorSite.PROBE_EDGES, A, B, 1000, 4, "test"),
                "a class not blocked here and in no call: no cycle");
    }

    /** A target only {@link Hung} handles. */
    static final class HungPeer {
    }

    /** A target only {@link Failing} handles. */
    static final class DeadPeer {
    }

    /** A peer that never answers: each call blocks until the test releases it, deaf to interrupts (a socket read). */
    static final class Hung implements RemoteMonitorTransport {
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public boolean handles(Object target) {
            return target instanceof HungPeer;
        }

        @Override
        public long call(Object target, int op, long threadClass, long token, long arg, int nanos) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String callText(Object target, int op, long threadClass, long token, long arg, int nanos) {
            for (;;) {
                try {
                    release.await();
                    return "";
                } catch (InterruptedException e) {
                    // as a JRMP socket read: not interruptible
                }
            }
        }

        @Override
        public String describe(Object target) {
            return "a hung peer";
        }
    }

    /** A peer without dthreads (or unreachable): every call fails as the adapters report it. */
    static final class Failing implements RemoteMonitorTransport {
        @Override
        public boolean handles(Object target) {
            return target instanceof DeadPeer;
        }

        @Override
        public long call(Object target, int op, long threadClass, long token, long arg, int nanos) {
            throw new RemoteMonitorException("dthreads: the site does not run dthreads");
        }

        @Override
        public String describe(Object target) {
            return "a dead peer";
        }
    }

    @Test
    void aPeerThatHangsCostsTheAskerAtMostItsBudgetAndFewThreads() {
        Hung hung = new Hung();
        RemoteMonitors.register(hung);
        try {
            for (int i = 0; i < ProbeCalls.MAX_THREADS + 2; i++) {
                long start = System.nanoTime();
                assertNull(ProbeCalls.ask(new HungPeer(), A, B, 300, 4));
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(millis < 2_000, "waited " + millis + " ms for a hung peer, budget 300 ms");
            }
            long start = System.nanoTime();
            assertNull(ProbeCalls.ask(new HungPeer(), A, B, 10_000, 4)); // every probe thread is stuck: not sent
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2), "refused at once, not queued");
        } finally {
            hung.release.countDown();
            RemoteMonitors.unregister(hung);
        }
    }

    @Test
    void aPeerWithoutDthreadsOrTooLittleTimeGivesNoAnswerAndNoHang() {
        Failing failing = new Failing();
        RemoteMonitors.register(failing);
        try {
            assertNull(ProbeCalls.ask(new DeadPeer(), A, B, 1_000, 4)); // the SPI's default: no text answers
            assertNull(ProbeCalls.ask(new DeadPeer(), A, B, DeadlockProbe.HOP_MARGIN_MILLIS, 4)); // no budget left
            assertNull(ProbeCalls.ask(new Object(), A, B, 1_000, 4)); // no transport at all
        } finally {
            RemoteMonitors.unregister(failing);
        }
    }
}
