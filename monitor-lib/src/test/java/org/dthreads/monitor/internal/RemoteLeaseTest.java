package org.dthreads.monitor.internal;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.dthreads.ClassScope;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.monitor.MonitorDump;
import org.dthreads.monitor.Monitors;
import org.dthreads.monitor.spi.OutgoingCalls;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The site side of remote monitors, driven directly as an adapter's server would. */
@Timeout(value = 60, unit = SECONDS)
class RemoteLeaseTest {
    private static final long REMOTE = ThreadClass.of(0x5151, 9);

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** A local thread that enters {@code target}, counts itself in {@code in}, and exits. */
    private static Thread localEntrant(Object target, AtomicInteger in) {
        return daemon("local", () -> {
            Monitors.enter(target);
            in.incrementAndGet();
            Monitors.exit(target);
        });
    }

    private static void awaitParked(Thread t) {
        await().atMost(Duration.ofSeconds(10)).until(() -> t.getState() == Thread.State.TIMED_WAITING
                || t.getState() == Thread.State.WAITING);
    }

    @Test
    void remoteOwnerExcludesLocalThreadsAndReentersWithItsToken() throws Exception {
        Object target = new Object();
        long token = RemoteMonitorSite.enter(target, REMOTE, "peer-1", 60_000);
        assertEquals(token, RemoteMonitorSite.enter(target, REMOTE, "peer-1", 60_000), "re-entry keeps the token");
        AtomicInteger localIn = new AtomicInteger();
        Thread local = localEntrant(target, localIn);
        awaitParked(local);
        assertEquals(0, localIn.get());
        List<MonitorDump.Entry> dump = MonitorDump.snapshot();
        assertTrue(dump.stream().anyMatch(e -> e.ownerClass() == REMOTE && "peer-1".equals(e.remotePeer())
                && e.depth() == 2), MonitorDump.text());
        RemoteMonitorSite.exit(token);
        assertTrue(RemoteMonitorSite.holds(token));
        RemoteMonitorSite.exit(token);
        local.join(SECONDS.toMillis(10));
        assertEquals(1, localIn.get());
        assertThrows(IllegalMonitorStateException.class, () -> RemoteMonitorSite.exit(token));
    }

    /** The SPI for an adapter that can tell a holder's connection is gone (docs/remote-monitors.md). */
    @Test
    void aCancelledLeaseFreesTheMonitorAtOnceAndTheHoldersNextOperationFails() throws Exception {
        Object target = new Object();
        long token = RemoteMonitorSite.enter(target, REMOTE, "peer-c", 60_000);
        RemoteMonitorSite.enter(target, REMOTE, "peer-c", 60_000); // two levels: a cancel drops them all
        AtomicInteger localIn = new AtomicInteger();
        Thread local = localEntrant(target, localIn);
        awaitParked(local);
        RemoteMonitorSite.cancel(token);
        local.join(SECONDS.toMillis(10)); // long before the 60 s lease
        assertEquals(1, localIn.get());
        assertFalse(RemoteMonitorSite.holds(token));
        assertFalse(RemoteMonitorSite.renew(token));
        assertThrows(IllegalMonitorStateException.class, () -> RemoteMonitorSite.exit(token));
        RemoteMonitorSite.cancel(token); // twice, and an unknown token: ignored
        RemoteMonitorSite.cancel(0x1234L);
    }

    @Test
    void anExpiredLeaseIsRevokedAndTheHoldersNextOperationFails() throws Exception {
        Object target = new Object();
        long token = RemoteMonitorSite.enter(target, REMOTE, "peer-2", 200);
        AtomicInteger localIn = new AtomicInteger();
        Thread local = localEntrant(target, localIn);
        // the holder neither renews nor operates: the local entrant gets the monitor after the lease
        local.join(SECONDS.toMillis(10));
        assertEquals(1, localIn.get());
        assertFalse(RemoteMonitorSite.renew(token));
        IllegalMonitorStateException e = assertThrows(IllegalMonitorStateException.class,
                () -> RemoteMonitorSite.notify(token, true));
        assertTrue(e.getMessage().contains("expired") || e.getMessage().contains("unknown"), e.getMessage());
    }

    @Test
    void renewalKeepsTheLease() throws Exception {
        // Renewed every ~100 ms for 2.5 times the lease: only renewal can keep it that long. The lease is long
        // against the renewal period (a 300 ms lease lost a renewal to a scheduling stall under a CPU hog).
        Object target = new Object();
        long token = RemoteMonitorSite.enter(target, REMOTE, "peer-3", 2_000);
        long until = System.nanoTime() + Duration.ofMillis(5_000).toNanos();
        while (System.nanoTime() < until) {
            assertTrue(RemoteMonitorSite.renew(token));
            await().pollDelay(Duration.ofMillis(100)).atMost(Duration.ofSeconds(1)).until(() -> true);
        }
        assertTrue(RemoteMonitorSite.holds(token));
        RemoteMonitorSite.exit(token);
    }

    @Test
    void remoteWaitReleasesAndALocalNotifyWakesIt() throws Exception {
        Object target = new Object();
        long token = RemoteMonitorSite.enter(target, REMOTE, "peer-4", 60_000);
        AtomicReference<String> result = new AtomicReference<>();
        Thread server = daemon("server", () -> {
            try {
                RemoteMonitorSite.waitOn(token, 0, 0);
                result.set("woke, holds=" + RemoteMonitorSite.holds(token));
            } catch (Throwable t) {
                result.set(t.toString());
            }
        });
        awaitParked(server);
        Monitors.enter(target); // the remote wait released it
        Monitors.notifyAll(target);
        Monitors.exit(target);
        server.join(SECONDS.toMillis(10));
        assertEquals("woke, holds=true", result.get());
        RemoteMonitorSite.exit(token);
    }

    @Test
    void aRemoteClassMayActForItsLocalThreadBlockedInAnOutgoingCall() throws Exception {
        // causality rule: class T's home thread holds the monitor and is blocked in a call; T arrives
        // back from the network (as a lease request from the peer) and may take the monitor over.
        Object target = new Object();
        long cls = DThreads.currentClass();
        Monitors.enter(target);
        OutgoingCalls.begin();
        AtomicReference<String> result = new AtomicReference<>();
        try {
            Thread server = daemon("server", () -> {
                long token = RemoteMonitorSite.enter(target, cls, "peer-5", 60_000);
                result.set("entered, holds=" + RemoteMonitorSite.holds(token));
                RemoteMonitorSite.exit(token);
            });
            server.join(SECONDS.toMillis(10));
        } finally {
            OutgoingCalls.end();
        }
        assertEquals("entered, holds=true", result.get());
        assertTrue(Monitors.holdsLock(target));
        Monitors.exit(target);
        assertFalse(Monitors.holdsLock(target));
        // a remote class with no suspended local thread and no lease is an ordinary contender
        Monitors.enter(target);
        AtomicInteger in = new AtomicInteger();
        Thread server = daemon("server2", () -> {
            try (ClassScope s = DThreads.bind(REMOTE)) {
                long token = RemoteMonitorSite.enter(target, REMOTE, "peer-6", 60_000);
                in.incrementAndGet();
                RemoteMonitorSite.exit(token);
            }
        });
        awaitParked(server);
        assertEquals(0, in.get());
        Monitors.exit(target);
        server.join(SECONDS.toMillis(10));
        assertEquals(1, in.get());
    }
}
