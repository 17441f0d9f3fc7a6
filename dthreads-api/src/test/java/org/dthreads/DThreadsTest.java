package org.dthreads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DThreadsTest {

    private final List<String> logged = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Logger kernelLog = Logger.getLogger("org.dthreads.internal.KernelLink");
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void captureLog() {
        kernelLog.addHandler(capture);
    }

    @AfterEach
    void releaseLog() {
        kernelLog.removeHandler(capture);
    }

    @Test
    void aThreadGetsItsOwnClassLazilyAndKeepsIt() throws Exception {
        long mine = DThreads.currentClass();
        assertTrue(ThreadClass.isValid(mine));
        assertEquals(DThreads.siteId(), ThreadClass.siteId(mine));
        assertEquals(mine, DThreads.currentClass());
        long other = CompletableFuture.supplyAsync(DThreads::currentClass).get(10, TimeUnit.SECONDS);
        assertNotEquals(mine, other);
    }

    @Test
    void manyThreadsGetDistinctClasses() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            Set<Long> seen = ConcurrentHashMap.newKeySet();
            List<CompletableFuture<Void>> runs = new java.util.ArrayList<>();
            for (int i = 0; i < 64; i++) {
                runs.add(CompletableFuture.runAsync(() -> {
                    Thread t = new Thread(() -> seen.add(DThreads.currentClass()));
                    t.start();
                    try {
                        t.join();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, pool));
            }
            CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertEquals(64, seen.size());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void bindingNestsAndCloseRestoresThePreviousClass() {
        long own = DThreads.currentClass();
        long a = ThreadClass.of(7, 1);
        long b = ThreadClass.of(8, 2);
        try (ClassScope outer = DThreads.bind(a)) {
            assertEquals(a, DThreads.currentClass());
            assertEquals(a, outer.boundClass());
            try (ClassScope inner = DThreads.bind(b)) {
                assertEquals(b, DThreads.currentClass());
            }
            assertEquals(a, DThreads.currentClass());
        }
        assertEquals(own, DThreads.currentClass());
        assertTrue(logged.isEmpty(), logged::toString);
    }

    @Test
    void deepNestingRestoresEveryLevel() {
        long own = DThreads.currentClass();
        ClassScope[] scopes = new ClassScope[100];
        for (int i = 0; i < scopes.length; i++) {
            scopes[i] = DThreads.bind(ThreadClass.of(9, i + 1));
        }
        for (int i = scopes.length - 1; i >= 0; i--) {
            assertEquals(ThreadClass.of(9, i + 1), DThreads.currentClass());
            scopes[i].close();
        }
        assertEquals(own, DThreads.currentClass());
    }

    @Test
    void closingOutOfOrderIsLoggedAndIgnored() {
        long own = DThreads.currentClass();
        long a = ThreadClass.of(7, 1);
        long b = ThreadClass.of(8, 2);
        ClassScope outer = DThreads.bind(a);
        ClassScope inner = DThreads.bind(b);
        outer.close(); // out of order: ignored
        assertEquals(b, DThreads.currentClass());
        assertTrue(logged.stream().anyMatch(m -> m.contains("closed while an inner scope is still open")), logged::toString);
        inner.close();
        assertEquals(a, DThreads.currentClass());
        outer.close(); // now in order: takes effect
        assertEquals(own, DThreads.currentClass());
    }

    @Test
    void closingTwiceIsLoggedAndIgnored() {
        long own = DThreads.currentClass();
        long a = ThreadClass.of(7, 1);
        ClassScope first = DThreads.bind(a);
        first.close();
        ClassScope second = DThreads.bind(a); // same depth as first
        first.close(); // must not pop 'second'
        assertEquals(a, DThreads.currentClass());
        assertTrue(logged.stream().anyMatch(m -> m.contains("closed twice")), logged::toString);
        second.close();
        assertEquals(own, DThreads.currentClass());
    }

    @Test
    void closingOnAnotherThreadIsLoggedAndIgnored() throws Exception {
        long a = ThreadClass.of(7, 1);
        ClassScope scope = DThreads.bind(a);
        try {
            CompletableFuture.runAsync(scope::close).get(10, TimeUnit.SECONDS);
            assertEquals(a, DThreads.currentClass());
            assertTrue(logged.stream().anyMatch(m -> m.contains("was closed on thread")), logged::toString);
        } finally {
            scope.close();
        }
    }

    @Test
    void bindingIsPerThread() throws Exception {
        long a = ThreadClass.of(7, 1);
        try (ClassScope ignored = DThreads.bind(a)) {
            long seenElsewhere = CompletableFuture.supplyAsync(DThreads::currentClass).get(10, TimeUnit.SECONDS);
            assertNotEquals(a, seenElsewhere);
        }
    }

    @Test
    void invalidClassesCannotBeBound() {
        assertThrows(IllegalArgumentException.class, () -> DThreads.bind(ThreadClass.NONE));
        assertThrows(IllegalArgumentException.class, () -> DThreads.bind(0x0000_0001_0000_0000L));
        assertThrows(IllegalArgumentException.class, () -> DThreads.bind(0x0000_0000_0000_0001L));
    }

    @Test
    void siteIdentityIsStable() {
        assertNotEquals(0, DThreads.siteId());
        assertNotEquals(0L, DThreads.siteIncarnation());
        assertEquals(DThreads.siteId(), DThreads.siteId());
        Set<Long> both = new HashSet<>(List.of(DThreads.siteIncarnation(), DThreads.siteIncarnation()));
        assertEquals(1, both.size());
    }
}
