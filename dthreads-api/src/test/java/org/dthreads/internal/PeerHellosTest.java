package org.dthreads.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PeerHellosTest {

    @Test
    void oneHelloPerPeerUntilTheRefreshPeriodHasPassed() {
        PeerHellos.forget();
        assertTrue(PeerHellos.due("a:1"));
        assertFalse(PeerHellos.due("a:1"));
        assertTrue(PeerHellos.due("b:2"), "another peer");
        PeerHellos.giveUp("c:3");
        assertFalse(PeerHellos.due("c:3"), "a peer that cannot answer is not asked again");
    }

    @Test
    void concurrentCallsToANewPeerSendOneHello() throws Exception {
        PeerHellos.forget();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            CountDownLatch go = new CountDownLatch(1);
            AtomicInteger hellos = new AtomicInteger();
            Future<?>[] f = new Future<?>[8];
            for (int i = 0; i < 8; i++) {
                f[i] = pool.submit(() -> {
                    go.await();
                    if (PeerHellos.due("shared:1")) {
                        hellos.incrementAndGet();
                    }
                    return null;
                });
            }
            go.countDown();
            for (Future<?> x : f) {
                x.get(10, TimeUnit.SECONDS);
            }
            assertEquals(1, hellos.get());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theTableIsBounded() {
        PeerHellos.forget();
        for (int i = 0; i < PeerHellos.MAX_PEERS + 10; i++) {
            PeerHellos.due("peer " + i);
        }
        assertTrue(PeerHellos.size() <= PeerHellos.MAX_PEERS);
    }
}
