package shapes;

/** Java 25 (flexible constructor bodies): a synchronized block before super(..). */
public class EarlyConstruction extends Base {
    static final Object LOCK = new Object();
    static int before;

    public EarlyConstruction(int k) {
        int v;
        synchronized (LOCK) {
            before = Exclusion.racyIncrement(before);
            v = k + (Thread.holdsLock(LOCK) ? 1 : 100);
        }
        super(v);
    }

    public static String run() {
        int failures = Exclusion.hammer(200, () -> new EarlyConstruction(1));
        return "before=" + before + " value=" + new EarlyConstruction(5).value + " failures=" + failures;
    }
}

class Base {
    final int value;

    Base(int value) {
        this.value = value;
    }
}
