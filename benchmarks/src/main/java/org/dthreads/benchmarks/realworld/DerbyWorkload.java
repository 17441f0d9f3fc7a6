package org.dthreads.benchmarks.realworld;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
 */
public final class DerbyWorkload {

    static final int COUNTERS = 16;
    private static final int MAX_ATTEMPTS = 10;
    private static final AtomicInteger DATABASES = new AtomicInteger();
    /** Write transactions rolled back by a Derby deadlock or lock time-out and run again (all runs). */
    static final AtomicInteger RETRIES = new AtomicInteger();

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
        String url = "jdbc:derby:memory:dthreads-derby-" + DATABASES.incrementAndGet();
        try (Connection admin = DriverManager.getConnection(url + ";create=true"); Statement s = admin.createStatement()) {
            s.execute("CREATE TABLE ITEM(ID INT PRIMARY KEY, OWNER INT NOT NULL, NAME VARCHAR(64), QTY INT)");
            s.execute("CREATE INDEX ITEM_OWNER ON ITEM(OWNER)");
            s.execute("CREATE TABLE COUNTER(ID INT PRIMARY KEY, N BIGINT NOT NULL)");
            for (int i = 0; i < COUNTERS; i++) {
                s.execute("INSERT INTO COUNTER VALUES (" + i + ", 0)");
            }
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            long digest = 0;
            try {
                List<Future<Long>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int owner = t;
                    results.add(pool.submit(() -> client(url, owner, transactionsPerThread)));
                }
                for (Future<Long> f : results) {
                    digest = digest * 31 + f.get();
                }
            } finally {
                pool.shutdown();
            }
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
        } finally {
            drop(url);
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

    private static long client(String url, int owner, int transactions) throws SQLException {
        long digest = 0;
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement insert = c.prepareStatement("INSERT INTO ITEM VALUES (?, ?, ?, ?)");
                PreparedStatement bump = c.prepareStatement("UPDATE COUNTER SET N = N + 1 WHERE ID = ?");
                PreparedStatement update = c.prepareStatement("UPDATE ITEM SET QTY = QTY + 1 WHERE ID = ?");
                PreparedStatement query = c.prepareStatement(
                        "SELECT COUNT(*), SUM(QTY), MAX(NAME) FROM ITEM WHERE OWNER = ? WITH UR")) {
            c.setAutoCommit(false);
            for (int i = 0; i < transactions; i++) {
                int id = owner * transactions + i;
                for (int attempt = 1; ; attempt++) {
                    try {
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
