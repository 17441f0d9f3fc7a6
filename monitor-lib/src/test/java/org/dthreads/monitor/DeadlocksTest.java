package org.dthreads.monitor;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.monitor.internal.diagnostics.Cycles;
import org.dthreads.monitor.internal.diagnostics.WaitEdge;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A local AB-BA on emulated monitors is found as the JVM finds its own (which cannot see it), by the API, the
 * MBean and the dump; contention without a cycle is not reported. The deadlocked threads are daemons left
 * stuck on objects of this test only (an emulated monitor entry cannot be broken).
 */
@Timeout(value = 60, unit = SECONDS)
class DeadlocksTest {

    /** The lock type the dump names. */
    static final class Node {
        final String name;

        Node(String name) {
            this.name = name;
        }
    }

    @Test
    void emulatedAbBaIsFoundByTheApiTheMBeanAndTheDump() throws Exception {
        Node a = new Node("a");
        Node b = new Node("b");
        CountDownLatch bothHoldOne = new CountDownLatch(2);
        AtomicLong classOne = new AtomicLong();
        AtomicLong classTwo = new AtomicLong();
        Thread one = lockInOrder("abba-one", a, b, bothHoldOne, classOne);
        Thread two = lockInOrder("abba-two", b, a, bothHoldOne, classTwo);
        await().atMost(Duration.ofSeconds(10)).until(() -> Deadlocks.findDeadlockedThreads() != null);

        assertNull(ManagementFactory.getThreadMXBean().findDeadlockedThreads(),
                "the JVM cannot see a deadlock on emulated monitors: that is the point of the check");
        long[] found = Deadlocks.findDeadlockedThreads();
        Arrays.sort(found);
        long[] expected = {one.getId(), two.getId()};
        Arrays.sort(expected);
        assertArrayEquals(expected, found);

        String report = Deadlocks.report();
        assertTrue(report.contains("a cycle of 2 thread classes across 1 site"), report);
        assertTrue(report.contains(ThreadClass.format(classOne.get())) && report.contains(ThreadClass.format(classTwo.get())),
                report);
        assertTrue(report.contains(String.format("waiting to lock <0x%08x> (a %s)", System.identityHashCode(b),
                Node.class.getName())), report);
        assertTrue(report.contains("DeadlocksTest.lambda$lockInOrder"), report);

        String dump = Deadlocks.threadDump();
        assertTrue(dump.contains("\"abba-one\""), dump);
        assertTrue(dump.contains("java.lang.Thread.State: BLOCKED (on an emulated monitor"), dump);
        assertTrue(dump.contains(String.format("- locked <0x%08x> (a %s) [emulated] by class %s", System.identityHashCode(a),
                Node.class.getName(), ThreadClass.format(classOne.get()))), dump);
        assertTrue(dump.contains(String.format("- waiting to lock <0x%08x> (a %s) [emulated] owned by class %s (thread \"abba-one\")",
                System.identityHashCode(a), Node.class.getName(), ThreadClass.format(classOne.get()))), dump);
        assertTrue(dump.contains("Found 1 dthreads deadlock(s)."), dump);

        assertTrue(Deadlocks.registerMBean());
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("org.dthreads:type=Monitors");
        assertEquals(1, server.getAttribute(name, "DeadlockCount"));
        assertTrue((Integer) server.getAttribute(name, "BlockedThreads") >= 2);
        String viaMBean = (String) server.invoke(name, "deadlocks", null, null);
        assertTrue(viaMBean.contains("thread \"abba-one\""), viaMBean);
        String[] edges = (String[]) server.invoke(name, "edges", null, null);
        List<WaitEdge> parsed = Arrays.stream(edges).map(WaitEdge::parse).toList();
        assertEquals(1, Cycles.find(parsed).size(), String.join("\n", edges));
    }

    @Test
    void aCycleThroughAJvmMonitorAndALockIsFoundWithTheClassesOfTheirOwners() throws Exception {
        Node emulated = new Node("emulated");
        Object jvmMonitor = new Object(); // this test class is not rewritten: a real JVM monitor
        java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
        Node emulated2 = new Node("emulated2");
        CountDownLatch first = new CountDownLatch(2);
        CountDownLatch second = new CountDownLatch(2);
        Thread one = daemon("mixed-one", () -> {
            Monitors.enter(emulated);
            awaitQuietly(first);
            synchronized (jvmMonitor) {
                Thread.onSpinWait();
            }
        });
        Thread two = daemon("mixed-two", () -> {
            synchronized (jvmMonitor) {
                awaitQuietly(first);
                Monitors.enter(emulated);
            }
        });
        Thread three = daemon("mixed-three", () -> {
            Monitors.enter(emulated2);
            awaitQuietly(second);
            lock.lock();
        });
        Thread four = daemon("mixed-four", () -> {
            lock.lock();
            awaitQuietly(second);
            Monitors.enter(emulated2);
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            long[] ids = Deadlocks.findDeadlockedThreads();
            return ids != null && Arrays.stream(ids).filter(id -> id == one.getId() || id == two.getId()
                    || id == three.getId() || id == four.getId()).count() == 4;
        });
        String report = Deadlocks.report();
        assertTrue(report.contains(String.format("waiting to lock <0x%08x> (a java.lang.Object) [native monitor]",
                System.identityHashCode(jvmMonitor))), report);
        assertTrue(report.contains("(a java.util.concurrent.locks.ReentrantLock$NonfairSync) [lock monitor]"), report);
        // the native owner's class is known (it is queued on an emulated monitor), so the cycle is over classes
        assertTrue(report.matches("(?s).*waiting to lock <0x\\p{XDigit}{8}> \\(a java.lang.Object\\) \\[native monitor\\]\n"
                + "    which is held by class \\p{XDigit}{8}:\\p{XDigit}{8} \\(thread \"mixed-two\"\\).*"), report);
    }

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        latch.countDown();
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void contentionWithoutACycleIsNotADeadlock() throws Exception {
        Node shared = new Node("shared");
        List<Thread> threads = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Thread t = new Thread(() -> {
                for (int n = 0; n < 20_000; n++) {
                    Monitors.enter(shared);
                    try {
                        Thread.onSpinWait();
                    } finally {
                        Monitors.exit(shared);
                    }
                }
            }, "contender-" + i);
            t.start();
            threads.add(t);
        }
        Monitors.enter(shared); // hold it a while so the contenders queue: edges, but no cycle
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> MonitorDump.snapshot().stream()
                    .anyMatch(e -> e.identityHash() == System.identityHashCode(shared) && !e.entrantClasses().isEmpty()));
            // (another test's deadlocked threads may still be stuck in this JVM: only ours matter)
            long[] deadlocked = Deadlocks.findDeadlockedThreads();
            for (Thread t : threads) {
                assertTrue(deadlocked == null || Arrays.stream(deadlocked).noneMatch(id -> id == t.getId()),
                        Deadlocks::threadDump);
            }
            String dump = Deadlocks.threadDump();
            assertTrue(!dump.contains(String.format("waiting to lock <0x%08x> (a %s) [emulated monitor]",
                    System.identityHashCode(shared), Node.class.getName())), dump);
            assertTrue(dump.contains("owned by class " + ThreadClass.format(DThreads.currentClass())), dump);
        } finally {
            Monitors.exit(shared);
        }
        for (Thread t : threads) {
            t.join(SECONDS.toMillis(30));
        }
    }

    @Test
    void anEdgeSurvivesItsLineForm() {
        WaitEdge e = new WaitEdge(42, 7, "host\twith tab", ThreadClass.of(42, 3), 11, "name\nwith newline \\", "BLOCKED",
                "emulated", "com.acme.Node", 0x1234, ThreadClass.of(9, 1), -1, "lease 1f of x", "peer:1099", false,
                List.of("a.B.c(B.java:1)", "d.E.f(Native Method)"));
        assertEquals(e, WaitEdge.parse(e.toLine()));
        assertNotNull(e.toLine());
    }

    private static Thread lockInOrder(String name, Object first, Object second, CountDownLatch bothHoldOne,
            AtomicLong cls) {
        Thread t = new Thread(() -> {
            cls.set(DThreads.currentClass());
            Monitors.enter(first);
            try {
                bothHoldOne.countDown();
                bothHoldOne.await();
                Monitors.enter(second);
                Monitors.exit(second);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                Monitors.exit(first);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
