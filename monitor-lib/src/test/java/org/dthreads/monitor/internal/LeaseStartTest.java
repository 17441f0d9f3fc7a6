package org.dthreads.monitor.internal;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.dthreads.ThreadClass;
import org.dthreads.monitor.Monitors;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 15 §1: a lease runs from the moment its monitor is granted, whatever the wait before it, and from
 * the re-acquire after a remote wait, however long the wait. Driven as an adapter's server would.
 */
@Timeout(value = 60, unit = SECONDS)
class LeaseStartTest {
    private static final long REMOTE = ThreadClass.of(0x5152, 3);
    private static final long LEASE_MILLIS = 400;

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** A local thread holds {@code target} until {@code release} opens. */
    private static Thread holdLocally(Object target, CountDownLatch entered, CountDownLatch release) {
        return daemon("local-holder", () -> {
            Monitors.enter(target);
            try {
                entered.countDown();
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                Monitors.exit(target);
            }
        });
    }

    @Test
    void aLeaseGrantedAfterAWaitLongerThanItselfIsValidForItsWholeDuration() throws Exception {
        Object target = new Object();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        holdLocally(target, entered, release);
        entered.await();
        CompletableFuture<Long> remoteEnter = CompletableFuture.supplyAsync(
                () -> RemoteMonitorSite.enter(target, REMOTE, "peer-slow", LEASE_MILLIS));
        // the remote entrant waits three leases for the monitor
        await().pollDelay(Duration.ofMillis(3 * LEASE_MILLIS)).atMost(Duration.ofSeconds(5)).until(() -> true);
        assertTrue(!remoteEnter.isDone(), "the local holder excludes the remote entrant");
        release.countDown();
        long token = remoteEnter.get(10, SECONDS);
        assertTrue(RemoteMonitorSite.renew(token), "a lease granted now is not expired, whatever the wait before it");
        assertTrue(RemoteMonitorSite.holds(token));
        // a local contender stays out while the lease is renewed
        AtomicInteger localInside = new AtomicInteger();
        Thread contender = daemon("local-contender", () -> {
            Monitors.enter(target);
            localInside.incrementAndGet();
            Monitors.exit(target);
        });
        for (int i = 0; i < 4; i++) {
            await().pollDelay(Duration.ofMillis(LEASE_MILLIS / 4)).atMost(Duration.ofSeconds(5)).until(() -> true);
            assertEquals(0, localInside.get(), "a contender got in while the remote lease was valid and renewed");
            assertTrue(RemoteMonitorSite.renew(token));
        }
        RemoteMonitorSite.exit(token);
        contender.join(SECONDS.toMillis(10));
        assertEquals(1, localInside.get());
    }

    @Test
    void aLeaseRunsAgainFromTheReacquireAfterARemoteWaitLongerThanItself() throws Exception {
        Object target = new Object();
        long token = RemoteMonitorSite.enter(target, REMOTE, "peer-waiter", LEASE_MILLIS);
        CompletableFuture<Void> remoteWait = CompletableFuture.runAsync(() -> {
            try {
                RemoteMonitorSite.waitOn(token, 0, 0);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // a local thread takes the monitor while the remote class waits, and keeps it for three leases
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        daemon("local-notifier", () -> {
            Monitors.enter(target);
            try {
                entered.countDown();
                release.await();
                Monitors.notifyAll(target);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                Monitors.exit(target);
            }
        });
        entered.await();
        await().pollDelay(Duration.ofMillis(3 * LEASE_MILLIS)).atMost(Duration.ofSeconds(5)).until(() -> true);
        release.countDown();
        remoteWait.get(10, SECONDS);
        assertTrue(RemoteMonitorSite.renew(token), "the lease runs from the re-acquire, however long the wait");
        assertTrue(RemoteMonitorSite.holds(token));
        RemoteMonitorSite.exit(token);
    }
}
