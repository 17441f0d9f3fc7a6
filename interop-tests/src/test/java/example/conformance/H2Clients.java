package example.conformance;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Several threads using an in-memory H2 (a library heavy in {@code synchronized}): inserts, updates
 * and per-thread queries; prints a digest of every result, which must not depend on dthreads. The
 * same shape as the benchmarks' {@code H2Workload}.
 */
public final class H2Clients {

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int rows = Integer.parseInt(args[1]);
        String url = "jdbc:h2:mem:conformance;DB_CLOSE_DELAY=-1";
        try (Connection admin = DriverManager.getConnection(url); Statement s = admin.createStatement()) {
            s.execute("CREATE TABLE ITEM(ID INT PRIMARY KEY, OWNER INT, NAME VARCHAR(64), QTY INT)");
            long[] digests = new long[threads];
            Throwable[] failures = new Throwable[threads];
            List<Thread> clients = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int owner = t;
                clients.add(new Thread(() -> {
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
                                    digests[owner] = digests[owner] * 31 + rs.getLong(1) * 7 + rs.getLong(2)
                                            + rs.getString(3).hashCode();
                                }
                            }
                        }
                    } catch (Throwable e) {
                        failures[owner] = e;
                    }
                }));
            }
            clients.forEach(Thread::start);
            for (Thread c : clients) {
                c.join();
            }
            for (int t = 0; t < threads; t++) {
                if (failures[t] != null) {
                    throw new IllegalStateException("client " + t + " failed", failures[t]);
                }
                System.out.println("client " + t + ": " + digests[t]);
            }
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(QTY), SUM(ID) FROM ITEM")) {
                rs.next();
                System.out.println("totals: " + rs.getLong(1) + " rows, qty " + rs.getLong(2) + ", ids " + rs.getLong(3));
            }
        }
    }
}
