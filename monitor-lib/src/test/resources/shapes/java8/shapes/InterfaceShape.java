package shapes;

/** Default and static interface methods with synchronized blocks. */
public interface InterfaceShape {
    int[] STATIC_COUNT = new int[1];

    int[] cell();

    default void increment() {
        synchronized (this) {
            cell()[0] = Exclusion.racyIncrement(cell()[0]);
        }
    }

    default String holds() {
        synchronized (this) {
            return "default holds=" + Thread.holdsLock(this);
        }
    }

    static void incrementStatic() {
        synchronized (InterfaceShape.class) {
            STATIC_COUNT[0] = Exclusion.racyIncrement(STATIC_COUNT[0]);
        }
    }

    static String run() {
        final Impl impl = new Impl();
        int failures = Exclusion.hammer(400, new Runnable() {
            public void run() {
                impl.increment();
                incrementStatic();
            }
        });
        return impl.holds() + " count=" + impl.cell()[0] + " static=" + STATIC_COUNT[0] + " failures=" + failures;
    }

    /** The implementation. */
    class Impl implements InterfaceShape {
        private final int[] cell = new int[1];

        public int[] cell() {
            return cell;
        }
    }
}
