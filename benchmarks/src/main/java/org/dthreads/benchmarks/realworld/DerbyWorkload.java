package org.dthreads.benchmarks.realworld;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An embedded Apache Derby workload (in memory): several threads run short transactions on two shared
 * tables. Each transaction inserts one row of its own into {@code ITEM}, increments one of the 16 shared
 * {@code COUNTER} rows (the hot rows the threads contend on: Derby's lock manager waits and wakes with
 * {@code wait}/{@code notifyAll}) and every 4th also updates one of its own earlier rows; every 5th is
 * followed by a read-only transaction aggregating its own rows of the shared table.
 *
 * <p>Deterministic on purpose, so the result can be compared between JVMs: every select reads only
 * rows its thread alone writes, and the shared counters only receive increments, which commute; the
 * final totals (row count, sums, each counter) check that no update was lost. One counter row per
 * write transaction, and reads that take no locks ({@code WITH UR}: a thread's own rows are committed
 * by itself), leave few chances for a lock cycle inside Derby (its B-tree scan locks); a write
 * transaction that Derby still picks as a deadlock victim is rolled back and run again, as an
 * application would, which leaves the result unchanged ({@link #RETRIES} counts them).
 *
 * <h2>The drop waits for every client, and is bounded</h2>
 * Derby's drop shuts the database down while other connections may still run: it marks their context
 * managers shut down and interrupts them, and its checkpoint then waits for each dirty page's latch. A
 * connection that fails after that point (say inside a B-tree split, which holds its pages' latches in an
 * internal transaction) skips its cleanup, because its context manager is shut down, so the latch is never
 * released and the drop waits for ever: a plain JVM hangs the same way (a heap dump shows the page's
 * {@code owner} set, its transaction's context manager shut down, and no thread left in it). So when one
 * client fails (Derby 10.15's own {@code XJ001} race does, with or without the agent), the others stop at
 * their next transaction and the drop starts only once every client has returned; a client still running
 * at the bound leaves the database undropped, and a drop still running at its bound fails the run instead
 * of hanging it.
 */
public final class DerbyWorkload {

    static final int COUNTERS = 16;
    private static final int MAX_ATTEMPTS = 10;
    static final AtomicInteger DATABASES = new AtomicInteger();
    /** Write transactions rolled back by a Derby deadlock or lock time-out and run again (all runs). */
    static final AtomicInteger RETRIES = new AtomicInteger();
    /** How long the clients of one run may take (a run takes 1-2 s, under heavy load well under a minute). */
    static final long CLIENTS_BOUND_SECONDS = 300;
    /** How long the drop may take (Derby sleeps 0.5 s in it; it takes under 2 s). */
    static final long DROP_BOUND_SECONDS = 60;

    /** Runs before each transaction of each client; the tests inject a failure through it, as Derby's XJ001. */
    interface Fault {
        void beforeTransaction(int owner, int transaction) throws SQLException;
    }

    static final Fault NO_FAULT = (owner, transaction) -> { };

    /** One run's clients: how many are still inside {@link #client}, and whether they are asked to stop. */
    private static final class Clients {
        final AtomicInteger running = new AtomicInteger();
        final AtomicBoolean stop = new AtomicBoolean();
    }

    static {
        // Derby writes derby.log into the working directory unless told otherwise
        if (System.getProperty("derby.stream.error.file") == null) {
            System.setProperty("derby.stream.error.file",
                    java.nio.file.Path.of(System.getProperty("java.io.tmpdir"), "dthreads-derby.log").toString());
        }
        // a deadlock is looked for after this many seconds of waiting (Derby's default: 20)
        if (System.getProperty("derby.locks.deadlockTimeout") == null) {
            System.setProperty("derby.locks.deadlockTimeout", "1");
        }
    }

    private DerbyWorkload() {}

    /** One full run on a new in-memory database, dropped afterwards; returns a digest of every query result. */
    public static long run(int threads, int transactionsPerThread) throws Exception {
        return run(threads, transactionsPerThread, NO_FAULT);
    }

    static long run(int threads, int transactionsPerThread, Fault fault) throws Exception {
        String url = databaseUrl(DATABASES.incrementAndGet());
        Clients clients = new Clients();
        Throwable failure = null;
        try (Connection admin = DriverManager.getConnection(url + ";create=true"); Statement s = admin.createStatement()) {
            s.execute("CREATE TABLE ITEM(ID INT PRIMARY KEY, OWNER INT NOT NULL, NAME VARCHAR(64), QTY INT)");
            s.execute("CREATE INDEX ITEM_OWNER ON ITEM(OWNER)");
            s.execute("CREATE TABLE COUNTER(ID INT PRIMARY KEY, N BIGINT NOT NULL)");
            for (int i = 0; i < COUNTERS; i++) {
                s.execute("INSERT INTO COUNTER VALUES (" + i + ", 0)");
            }
            long digest = runClients(url, threads, transactionsPerThread, fault, clients);
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(QTY), SUM(ID) FROM ITEM")) {
                rs.next();
                digest = digest * 31 + rs.getLong(1);
                digest = digest * 31 + rs.getLong(2);
                digest = digest * 31 + rs.getLong(3);
            }
            long increments = 0;
            try (ResultSet rs = s.executeQuery("SELECT ID, N FROM COUNTER ORDER BY ID")) {
                while (rs.next()) {
                    increments += rs.getLong(2);
                    digest = digest * 31 + rs.getLong(2);
                }
            }
            if (increments != (long) threads * transactionsPerThread) {
                throw new IllegalStateException("lost updates: " + increments + " increments of "
                        + (long) threads * transactionsPerThread);
            }
            return digest;
        } catch (Throwable t) {
            failure = t;
            throw t;
        } finally {
            dropAfterClients(url, clients, failure);
        }
    }

    static String databaseUrl(int n) {
        return "jdbc:derby:memory:dthreads-derby-" + n;
    }

    /**
     * Runs the clients and waits for every one of them, not only up to the first failure: the drop must not
     * start while a client runs (see the class comment). A failing client stops the others at their next
     * transaction; the first failure in submission order is thrown once every client has returned.
     */
    private static long runClients(String url, int threads, int transactions, Fault fault, Clients clients)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Long>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int owner = t;
                clients.running.incrementAndGet(); // counted from submission: a client not started yet runs later
                results.add(pool.submit(() -> {
                    try {
                        return client(url, owner, transactions, fault, clients.stop);
                    } catch (Throwable failure) {
                        clients.stop.set(true); // here, not when the main thread gets to this client's future
                        throw failure;
                    } finally {
                        clients.running.decrementAndGet();
                    }
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CLIENTS_BOUND_SECONDS);
            long digest = 0;
            ExecutionException firstFailure = null;
            for (Future<Long> f : results) {
                try {
                    digest = digest * 31 + f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (ExecutionException e) {
                    if (firstFailure == null) {
                        firstFailure = e;
                    }
                } catch (TimeoutException e) {
                    clients.stop.set(true);
                    throw new IllegalStateException(clients.running.get() + " Derby client(s) still running after "
                            + CLIENTS_BOUND_SECONDS + " s", firstFailure);
                }
            }
            if (firstFailure != null) {
                throw firstFailure;
            }
            return digest;
        } finally {
            pool.shutdown();
        }
    }

    /**
     * Drops the database once no client runs, within {@link #DROP_BOUND_SECONDS}. Its own failure is thrown if
     * the run succeeded, else added to the run's failure (which stays the one reported).
     */
    private static void dropAfterClients(String url, Clients clients, Throwable runFailure) {
        RuntimeException dropFailure = null;
        if (clients.running.get() > 0) {
            // never drop under a running client: Derby's drop may then wait for ever (see the class comment)
            dropFailure = new IllegalStateException(url + " not dropped: " + clients.running.get()
                    + " client(s) still running");
        } else {
            try {
                callBounded("drop " + url, () -> {
                    drop(url);
                    return null;
                }, DROP_BOUND_SECONDS);
            } catch (RuntimeException e) {
                dropFailure = e;
            }
        }
        if (dropFailure == null) {
            return;
        }
        if (runFailure != null) {
            runFailure.addSuppressed(dropFailure);
            return;
        }
        throw dropFailure;
    }

    /**
     * Calls {@code task} on a daemon thread and waits at most {@code boundSeconds}: a task still running then is
     * left behind (a daemon thread keeps no JVM alive) and reported as an {@link IllegalStateException}.
     */
    static <T> T callBounded(String what, Callable<T> task, long boundSeconds) {
        FutureTask<T> future = new FutureTask<>(task);
        Thread thread = new Thread(future, "dthreads-bounded " + what);
        thread.setDaemon(true);
        thread.start();
        try {
            return future.get(boundSeconds, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException(what + " still running after " + boundSeconds + " s", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(what, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(what + " interrupted", e);
        }
    }

    /** Deadlock victim (40001) or lock wait time-out (40XL1): the application's part is to run it again. */
    private static boolean isLockConflict(SQLException e) {
        return "40001".equals(e.getSQLState()) || "40XL1".equals(e.getSQLState());
    }

    private static void drop(String url) {
        try {
            DriverManager.getConnection(url + ";drop=true").close();
        } catch (SQLException expected) {
            // Derby reports a successful drop as SQLState 08006
            if (!"08006".equals(expected.getSQLState())) {
                throw new IllegalStateException("drop " + url, expected);
            }
        }
    }

    private static long client(String url, int owner, int transactions, Fault fault, AtomicBoolean stop)
            throws SQLException {
        long digest = 0;
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement insert = c.prepareStatement("INSERT INTO ITEM VALUES (?, ?, ?, ?)");
                PreparedStatement bump = c.prepareStatement("UPDATE COUNTER SET N = N + 1 WHERE ID = ?");
                PreparedStatement update = c.prepareStatement("UPDATE ITEM SET QTY = QTY + 1 WHERE ID = ?");
                PreparedStatement query = c.prepareStatement(
                        "SELECT COUNT(*), SUM(QTY), MAX(NAME) FROM ITEM WHERE OWNER = ? WITH UR")) {
            c.setAutoCommit(false);
            for (int i = 0; i < transactions && !stop.get(); i++) {
                int id = owner * transactions + i;
                for (int attempt = 1; ; attempt++) {
                    try {
                        fault.beforeTransaction(owner, i);
                        insert.setInt(1, id);
                        insert.setInt(2, owner);
                        insert.setString(3, "item-" + owner + "-" + i);
                        insert.setInt(4, i % 7);
                        insert.executeUpdate();
                        bump.setInt(1, (owner * 7 + i) % COUNTERS);
                        bump.executeUpdate();
                        if (i % 4 == 3) {
                            update.setInt(1, id - 2);
                            update.executeUpdate();
                        }
                        c.commit();
                        break;
                    } catch (SQLException e) {
                        c.rollback();
                        if (!isLockConflict(e) || attempt == MAX_ATTEMPTS) {
                            throw e;
                        }
                        RETRIES.incrementAndGet();
                    }
                }
                if (i % 5 == 4) {
                    query.setInt(1, owner);
                    try (ResultSet rs = query.executeQuery()) {
                        rs.next();
                        digest = digest * 31 + rs.getLong(1);
                        digest = digest * 31 + rs.getLong(2);
                        digest = digest * 31 + rs.getString(3).hashCode();
                    }
                    c.commit();
                }
            }
        }
        return digest;
    }

    /** {@code java -cp benchmarks.jar org.dthreads.benchmarks.realworld.DerbyWorkload [threads=4] [transactions=500]} */
    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int transactions = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        long t0 = System.nanoTime();
        long digest = run(threads, transactions);
        System.out.printf("derby workload %d threads x %d transactions: digest %d, %.0f ms, %d deadlock retries%n",
                threads, transactions, digest, (System.nanoTime() - t0) / 1e6, RETRIES.get());
    }
}
