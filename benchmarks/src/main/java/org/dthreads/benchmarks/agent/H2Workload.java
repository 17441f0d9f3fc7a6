package org.dthreads.benchmarks.agent;

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
 * A real multi-threaded workload of a library heavy in {@code synchronized}: H2 (in memory), several
 * threads each inserting its rows and querying them. The result is deterministic (every query reads
 * only its own thread's rows, and the totals at the end), so runs with and without dthreads can be
 * compared: {@code java -cp benchmarks.jar org.dthreads.benchmarks.agent.H2Workload [threads rows]}.
 */
public final class H2Workload {

    private static final AtomicInteger DATABASES = new AtomicInteger();

    private H2Workload() {}

    /** One full run on a new in-memory database; returns a digest of every query result. */
    public static long run(int threads, int rowsPerThread) throws Exception {
        String url = "jdbc:h2:mem:dthreads-bench-" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1";
        try (Connection admin = DriverManager.getConnection(url); Statement s = admin.createStatement()) {
            s.execute("CREATE TABLE ITEM(ID INT PRIMARY KEY, OWNER INT, NAME VARCHAR(64), QTY INT)");
            s.execute("CREATE INDEX ITEM_OWNER ON ITEM(OWNER)");
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<Long>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int owner = t;
                    results.add(pool.submit(() -> client(url, owner, rowsPerThread)));
                }
                long digest = 0;
                for (Future<Long> f : results) {
                    digest = digest * 31 + f.get();
                }
                try (ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(QTY), SUM(ID) FROM ITEM")) {
                    rs.next();
                    digest = digest * 31 + rs.getLong(1);
                    digest = digest * 31 + rs.getLong(2);
                    digest = digest * 31 + rs.getLong(3);
                }
                return digest;
            } finally {
                pool.shutdown();
                s.execute("DROP ALL OBJECTS");
                s.execute("SHUTDOWN");
            }
        }
    }

    private static long client(String url, int owner, int rows) throws SQLException {
        long digest = 0;
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement insert = c.prepareStatement("INSERT INTO ITEM VALUES (?, ?, ?, ?)");
                PreparedStatement update = c.prepareStatement("UPDATE ITEM SET QTY = QTY + 1 WHERE ID = ?");
                PreparedStatement query = c.prepareStatement(
                        "SELECT COUNT(*), SUM(QTY), MAX(NAME) FROM ITEM WHERE OWNER = ?")) {
            for (int i = 0; i < rows; i++) {
                int id = owner * rows + i;
                insert.setInt(1, id);
                insert.setInt(2, owner);
                insert.setString(3, "item-" + owner + "-" + i);
                insert.setInt(4, i % 7);
                insert.executeUpdate();
                if (i % 4 == 3) {
                    update.setInt(1, id - 2);
                    update.executeUpdate();
                }
                if (i % 10 == 9) {
                    query.setInt(1, owner);
                    try (ResultSet rs = query.executeQuery()) {
                        rs.next();
                        digest = digest * 31 + rs.getLong(1);
                        digest = digest * 31 + rs.getLong(2);
                        digest = digest * 31 + rs.getString(3).hashCode();
                    }
                }
            }
        }
        return digest;
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
        System.out.println("h2 workload " + threads + " threads x " + rows + " rows: digest " + run(threads, rows));
    }
}
