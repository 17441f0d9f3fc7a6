package shapes;

/** An enum with synchronized instance and static methods. */
public enum EnumShape {
    A, B;

    private int hits;
    private static int total;

    synchronized void hit() {
        hits = Exclusion.racyIncrement(hits);
    }

    static synchronized void count() {
        total = Exclusion.racyIncrement(total);
    }

    synchronized String describe() {
        return name() + "=" + hits + " holds=" + Thread.holdsLock(this);
    }

    public static String run() {
        int failures = Exclusion.hammer(400, new Runnable() {
            public void run() {
                A.hit();
                B.hit();
                count();
            }
        });
        return A.describe() + " " + B.describe() + " total=" + total + " failures=" + failures;
    }
}
