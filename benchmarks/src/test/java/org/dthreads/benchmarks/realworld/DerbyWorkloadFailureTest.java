package org.dthreads.benchmarks.realworld;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A failing Derby client (as Derby's own XJ001 race fails one) must not lead to a drop under the other clients,
 * which can hang the drop for ever in any JVM (see {@link DerbyWorkload}, "The drop waits for every client"), and
 * nothing in the run may wait without a bound.
 */
class DerbyWorkloadFailureTest {

    @Test
    @Timeout(120)
    void aFailingClientStopsTheOthersAndTheDropWaitsForThem() throws Exception {
        // client 1 fails at its 3rd transaction; the others have thousands left, so they are surely running then
        DerbyWorkload.Fault fault = (owner, transaction) -> {
            if (owner == 1 && transaction == 2) {
                throw new SQLException("injected client failure", "XJ001");
            }
        };
        long t0 = System.nanoTime();
        ExecutionException e = assertThrows(ExecutionException.class, () -> DerbyWorkload.run(4, 5_000, fault));
        assertEquals("injected client failure", e.getCause().getMessage(), "the client's failure is the one reported");
        // a drop attempted under running clients (or one that failed) would be suppressed into the failure
        assertArrayEquals(new Throwable[0], e.getSuppressed(), "the drop ran after every client and succeeded");
        String url = DerbyWorkload.databaseUrl(DerbyWorkload.DATABASES.get());
        SQLException gone = assertThrows(SQLException.class, () -> DriverManager.getConnection(url).close());
        assertEquals("XJ004", gone.getSQLState(), "the database was dropped");
        // the other clients stopped at their next transaction instead of running their 5,000
        assertTrue(System.nanoTime() - t0 < 60_000_000_000L, "the other clients stopped early");
    }

    @Test
    @Timeout(30)
    void aTaskStillRunningAtItsBoundFailsInsteadOfHanging() {
        CountDownLatch never = new CountDownLatch(1);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> DerbyWorkload.callBounded("stuck drop", () -> {
                    never.await();
                    return null;
                }, 1));
        assertTrue(e.getMessage().contains("stuck drop still running after 1 s"), e.getMessage());
    }

    @Test
    @Timeout(30)
    void aBoundedTaskReturnsItsResultOrItsFailure() {
        assertEquals("done", DerbyWorkload.callBounded("quick", () -> "done", 10));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DerbyWorkload.callBounded("failing", () -> {
                    throw new IllegalArgumentException("bad");
                }, 10));
        assertEquals("bad", e.getMessage());
    }
}
