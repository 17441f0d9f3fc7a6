package shapes;

import java.util.ArrayList;
import java.util.List;

/** A record with synchronized instance and static methods and a block in its compact constructor. */
public record RecordShape(String name, List<String> log) {
    private static int made;

    public RecordShape {
        synchronized (RecordShape.class) {
            made = Exclusion.racyIncrement(made);
        }
    }

    public synchronized void add(String s) {
        log.add(s + (Thread.holdsLock(this) ? "+" : "-"));
    }

    static synchronized int made() {
        return made;
    }

    public static String run() {
        RecordShape r = new RecordShape("r", new ArrayList<>());
        int failures = Exclusion.hammer(200, () -> {
            new RecordShape("tmp", List.of());
            r.add("x");
        });
        return "made=" + made() + " added=" + r.log().size() + " first=" + r.log().get(0) + " failures=" + failures;
    }
}
