package shapes;

/** synchronized on this, on a class literal, on an array, on a String, on a boxed value; static synchronized. */
public class LockTargets {
    private static final String STRING_LOCK = "shapes.LockTargets.lock";
    private static final Integer BOXED_LOCK = Integer.valueOf(100_000);
    private final long[] array = new long[1];
    private int onThis;
    private static int onClass;
    private static int onString;
    private static int onBoxed;
    private static int staticMethod;

    void all() {
        synchronized (this) {
            onThis = Exclusion.racyIncrement(onThis);
        }
        synchronized (LockTargets.class) {
            onClass = Exclusion.racyIncrement(onClass);
        }
        synchronized (array) {
            array[0] = Exclusion.racyIncrement((int) array[0]);
        }
        synchronized (STRING_LOCK) {
            onString = Exclusion.racyIncrement(onString);
        }
        synchronized (BOXED_LOCK) {
            onBoxed = Exclusion.racyIncrement(onBoxed);
        }
        bumpStatic();
    }

    static synchronized void bumpStatic() {
        staticMethod = Exclusion.racyIncrement(staticMethod);
    }

    public static String run() {
        final LockTargets t = new LockTargets();
        int failures = Exclusion.hammer(250, new Runnable() {
            public void run() {
                t.all();
            }
        });
        String holds;
        synchronized (STRING_LOCK) {
            holds = "string holds=" + Thread.holdsLock(STRING_LOCK) + " class holds=" + Thread.holdsLock(LockTargets.class);
        }
        return "this=" + t.onThis + " class=" + onClass + " array=" + t.array[0] + " string=" + onString + " boxed="
                + onBoxed + " static=" + staticMethod + " " + holds + " failures=" + failures;
    }
}
