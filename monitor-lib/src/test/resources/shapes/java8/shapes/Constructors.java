package shapes;

/** synchronized blocks in constructors and in the static initializer. */
public class Constructors {
    static final Object STATIC_LOCK = new Object();
    static final StringBuilder INIT_LOG = new StringBuilder();
    static int instances;

    static {
        synchronized (STATIC_LOCK) {
            INIT_LOG.append("clinit holds=").append(Thread.holdsLock(STATIC_LOCK));
        }
        synchronized (Constructors.class) {
            INIT_LOG.append(" class holds=").append(Thread.holdsLock(Constructors.class));
        }
    }

    private final String made;

    public Constructors() {
        this(0);
    }

    public Constructors(int k) {
        super();
        synchronized (STATIC_LOCK) {
            instances = Exclusion.racyIncrement(instances);
        }
        String m;
        synchronized (this) {
            m = "ctor holds=" + Thread.holdsLock(this) + " k=" + k;
        }
        made = m;
    }

    public static String run() {
        int failures = Exclusion.hammer(300, new Runnable() {
            public void run() {
                new Constructors();
            }
        });
        return INIT_LOG + " " + new Constructors(5).made + " instances=" + instances + " failures=" + failures;
    }
}
