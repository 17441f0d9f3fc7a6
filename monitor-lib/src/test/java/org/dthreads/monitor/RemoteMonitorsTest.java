package org.dthreads.monitor;

import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.dthreads.monitor.spi.RemoteMonitorTransport;
import org.dthreads.monitor.spi.RemoteMonitors;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.rmi.Remote;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client side of remote monitors, in one JVM: "stubs" are dynamic proxies of a {@link Remote}
 * interface whose handler names a local object, and a loopback transport serves each operation with
 * {@link RemoteMonitorSite#serve} on a fresh server thread, as an adapter's server would. The JRMP and IIOP
 * transports are tested end to end in interop-tests.
 */
class RemoteMonitorsTest {

    interface Counter extends Remote {}

    /** The stub's handler: knows the object at the "site". Never invoked here. */
    record Target(Object object) implements InvocationHandler {
        @Override
        public Object invoke(Object proxy, java.lang.reflect.Method method, Object[] args) {
            throw new UnsupportedOperationException();
        }
    }

    /** Serves each operation on a new server thread, as RMI does, and counts calls per operation. */
    static final class LoopbackTransport implements RemoteMonitorTransport {
        final ExecutorService server = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "loopback-server");
            t.setDaemon(true);
            return t;
        });
        final AtomicInteger[] calls = new AtomicInteger[9];

        LoopbackTransport() {
            for (int i = 0; i < calls.length; i++) {
                calls[i] = new AtomicInteger();
            }
        }

        @Override
        public boolean handles(Object target) {
            return Proxy.isProxyClass(target.getClass()) && Proxy.getInvocationHandler(target) instanceof Target;
        }

        @Override
        public long call(Object target, int op, long threadClass, long token, long arg, int nanos)
                throws InterruptedException {
            calls[op].incrementAndGet();
            Object object = ((Target) Proxy.getInvocationHandler(target)).object();
            Future<Long> reply = server.submit(() -> RemoteMonitorSite.serve(object, op, threadClass, token, arg, nanos,
                    "loopback"));
            try {
                return reply.get();
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                if (e.getCause() instanceof InterruptedException i) {
                    throw i;
                }
                throw new RemoteMonitorException("loopback failed", e.getCause());
            }
        }

        @Override
        public String describe(Object target) {
            return "loopback object";
        }
    }

    static LoopbackTransport transport;
    ExecutorService clients;

    @BeforeAll
    static void register() {
        transport = new LoopbackTransport();
        RemoteMonitors.register(transport);
    }

    @AfterAll
    static void unregister() {
        RemoteMonitors.unregister(transport);
        transport.server.shutdownNow();
    }

    @BeforeEach
    void startClients() {
        clients = Executors.newCachedThreadPool();
    }

    @AfterEach
    void stopClients() {
        clients.shutdownNow();
    }

    static Object stubFor(Object object) {
        return Proxy.newProxyInstance(Counter.class.getClassLoader(), new Class<?>[] {Counter.class}, new Target(object));
    }

    @Test
    void findsTheTransportThatHandlesATarget() {
        assertSame(transport, RemoteMonitors.transportFor(stubFor(new Object())));
        assertNull(RemoteMonitors.transportFor(new Object()), "local objects have no transport");
    }

    @Test
    void aStubIsLockedAtItsSiteNotLocally() {
        Object object = new Object();
        Object stub = stubFor(object);
        assertTrue(Monitors.isEmulated(stub));
        int enters = transport.calls[RemoteMonitorSite.ENTER].get();
        Monitors.enter(stub);
        try {
            assertTrue(Monitors.holdsLock(stub));
            assertTrue(RemoteMonitorSite.holds(0L) == false, "no lease 0");
            // the object's own monitor is held at its site, by this thread's class, under a lease
            List<MonitorDump.Entry> rows = MonitorDump.snapshot();
            assertTrue(rows.stream().anyMatch(r -> r.type().startsWith("remote loopback object")), rows::toString);
            assertTrue(rows.stream().anyMatch(r -> "loopback".equals(r.remotePeer())), rows::toString);
            assertFalse(Thread.holdsLock(stub), "the local stub's JVM monitor is not taken");
        } finally {
            Monitors.exit(stub);
        }
        assertEquals(enters + 1, transport.calls[RemoteMonitorSite.ENTER].get());
        assertFalse(Monitors.holdsLock(stub));
        assertFalse(isBusy(object) || isBusy(stub), MonitorDump::text);
    }

    @Test
    void reEntryIsCountedOnTheClientOneEnterAndOneExitGoToTheSite() {
        Object stub = stubFor(new Object());
        int enters = transport.calls[RemoteMonitorSite.ENTER].get();
        int exits = transport.calls[RemoteMonitorSite.EXIT].get();
        Monitors.enter(stub);
        Monitors.enter(stub);
        Monitors.enter(stub);
        Monitors.exit(stub);
        Monitors.exit(stub);
        assertTrue(Monitors.holdsLock(stub));
        Monitors.exit(stub);
        assertEquals(1, transport.calls[RemoteMonitorSite.ENTER].get() - enters);
        assertEquals(1, transport.calls[RemoteMonitorSite.EXIT].get() - exits);
        assertThrows(IllegalMonitorStateException.class, () -> Monitors.exit(stub));
    }

    @Test
    void twoClassesThroughTwoStubsOfOneObjectExcludeEachOtherAndTheObjectsOwnLocking() throws Exception {
        Object object = new Object();
        Object stub1 = stubFor(object);
        Object stub2 = stubFor(object);
        int[] counter = {0};
        int rounds = 300;
        List<CompletableFuture<Void>> all = List.of(
                CompletableFuture.runAsync(() -> increment(stub1, counter, rounds), clients),
                CompletableFuture.runAsync(() -> increment(stub2, counter, rounds), clients),
                CompletableFuture.runAsync(() -> increment(object, counter, rounds), clients)); // the site's own code
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, SECONDS);
        assertEquals(3 * rounds, counter[0]);
    }

    private static void increment(Object lock, int[] counter, int rounds) {
        for (int i = 0; i < rounds; i++) {
            Monitors.enter(lock);
            try {
                int v = counter[0];
                Thread.yield();
                counter[0] = v + 1;
            } finally {
                Monitors.exit(lock);
            }
        }
    }

    @Test
    void aRemoteWaiterIsWokenByTheSitesOwnThread() throws Exception {
        Object object = new Object();
        Object stub = stubFor(object);
        boolean[] ready = {false};
        Future<Boolean> waiter = clients.submit(() -> {
            Monitors.enter(stub);
            try {
                while (!ready[0]) {
                    Monitors.waitOn(stub, 30_000);
                }
                return Monitors.holdsLock(stub);
            } finally {
                Monitors.exit(stub);
            }
        });
        // the waiter released the monitor at the site while waiting: the site's thread can take it
        await().atMost(Duration.ofSeconds(10)).until(() -> MonitorDump.snapshot().stream()
                .anyMatch(r -> r.identityHash() == System.identityHashCode(object) && !r.waiterClasses().isEmpty()));
        Monitors.enter(object);
        try {
            ready[0] = true;
            Monitors.notifyAll(object);
        } finally {
            Monitors.exit(object);
        }
        assertTrue(waiter.get(10, SECONDS), "re-acquired after the wait");
    }

    @Test
    void waitAndNotifyOnAStubNotHeldFailLikeTheJvm() {
        Object stub = stubFor(new Object());
        assertThrows(IllegalMonitorStateException.class, () -> Monitors.waitOn(stub, 10));
        assertThrows(IllegalMonitorStateException.class, () -> Monitors.notifyOne(stub));
        assertThrows(IllegalMonitorStateException.class, () -> Monitors.notifyAll(stub));
        assertThrows(IllegalArgumentException.class, () -> {
            Monitors.enter(stub);
            try {
                Monitors.waitOn(stub, -1);
            } finally {
                Monitors.exit(stub);
            }
        });
    }

    @Test
    void aProxyOfARemoteInterfaceThatNoTransportHandlesKeepsTheJvmMonitor() {
        Object decorator = Proxy.newProxyInstance(Counter.class.getClassLoader(), new Class<?>[] {Counter.class},
                (p, m, a) -> null);
        assertFalse(Monitors.isEmulated(decorator));
        synchronized (decorator) {
            assertTrue(Monitors.holdsLock(decorator));
        }
    }

    @Test
    void aForgedTokenOrAnotherClassesTokenIsRefused() throws Exception {
        Object object = new Object();
        long owner = org.dthreads.ThreadClass.of(77, 1);
        long other = org.dthreads.ThreadClass.of(78, 1);
        long token = RemoteMonitorSite.serve(object, RemoteMonitorSite.ENTER, owner, 0L, 30_000L, 0, "peer-a");
        try {
            assertThrows(IllegalMonitorStateException.class,
                    () -> RemoteMonitorSite.serve(object, RemoteMonitorSite.NOTIFY, other, token, 0L, 0, "peer-b"));
            assertThrows(IllegalMonitorStateException.class,
                    () -> RemoteMonitorSite.serve(object, RemoteMonitorSite.EXIT, other, token, 0L, 0, "peer-b"));
            assertThrows(IllegalMonitorStateException.class,
                    () -> RemoteMonitorSite.serve(object, RemoteMonitorSite.NOTIFY, other, 0L, 0L, 0, "peer-b"));
            assertEquals(0L, RemoteMonitorSite.serve(object, RemoteMonitorSite.HOLDS, other, 0L, 0L, 0, "peer-b"));
            assertEquals(0L, RemoteMonitorSite.serve(object, RemoteMonitorSite.RENEW, other, token, 0L, 0, "peer-b"));
            assertEquals(1L, RemoteMonitorSite.serve(object, RemoteMonitorSite.HOLDS, owner, token, 0L, 0, "peer-a"));
        } finally {
            RemoteMonitorSite.serve(object, RemoteMonitorSite.EXIT, owner, token, 0L, 0, "peer-a");
        }
        assertFalse(isBusy(object), MonitorDump::text);
    }

    private static boolean isBusy(Object o) {
        int hash = System.identityHashCode(o);
        return MonitorDump.snapshot().stream().anyMatch(r -> r.identityHash() == hash);
    }

    @Test
    void aNativeModeObjectCannotBeEnteredRemotely() {
        java.util.Vector<Object> nativeMode = new java.util.Vector<>();
        RemoteMonitorException e = assertThrows(RemoteMonitorException.class, () -> RemoteMonitorSite.serve(nativeMode,
                RemoteMonitorSite.ENTER, org.dthreads.ThreadClass.of(79, 1), 0L, 30_000L, 0, "peer"));
        assertTrue(e.getMessage().contains("java.util.Vector"), e.getMessage());
    }
}
