package shapes;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;

/** try/finally, try/catch and try-with-resources inside and around synchronized blocks. */
public class TryShapes {
    private final Object lock = new Object();
    private final List<String> log = new ArrayList<String>();

    final class Res implements Closeable {
        private final String name;
        private final boolean failClose;

        Res(String name, boolean failClose) {
            this.name = name;
            this.failClose = failClose;
        }

        public void close() {
            log.add("close " + name + " holds=" + Thread.holdsLock(lock));
            if (failClose) {
                throw new IllegalStateException("close " + name);
            }
        }
    }

    int finallyInside(int n) {
        synchronized (lock) {
            try {
                if (n < 0) {
                    throw new IllegalArgumentException("neg");
                }
                if (n == 0) {
                    return -1;
                }
                return n * 10;
            } finally {
                log.add("finally " + n + " holds=" + Thread.holdsLock(lock));
            }
        }
    }

    int catchInside(int n) {
        synchronized (lock) {
            try {
                return 100 / n;
            } catch (ArithmeticException e) {
                log.add("caught holds=" + Thread.holdsLock(lock));
                return 0;
            }
        }
    }

    int twrInside(int n, boolean failClose) {
        synchronized (lock) {
            try (Res r = new Res("in" + n, failClose)) {
                if (n == 0) {
                    return -1;
                }
                if (n < 0) {
                    throw new IllegalArgumentException("neg");
                }
                log.add("body " + n);
            }
            return n;
        }
    }

    /** Around: javac cuts the outer try's range around the release code of each return (rhino's shape). */
    int twrAround(int n, boolean failClose) {
        try (Res r = new Res("around" + n, failClose)) {
            synchronized (lock) {
                if (n == 0) {
                    return -1;
                }
                if (n < 0) {
                    throw new IllegalArgumentException("neg");
                }
                log.add("around body " + n);
                return n * 3;
            }
        }
    }

    String attempt(Call call) {
        try {
            return String.valueOf(call.call());
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName() + ":" + e.getMessage() + "/suppressed=" + e.getSuppressed().length;
        }
    }

    interface Call {
        int call();
    }

    public static String run() {
        final TryShapes t = new TryShapes();
        List<String> out = new ArrayList<String>();
        for (final int n : new int[] {-1, 0, 2}) {
            out.add(t.attempt(() -> t.finallyInside(n)));
            out.add(t.attempt(() -> t.catchInside(n + 1)));
            for (final boolean fail : new boolean[] {false, true}) {
                out.add(t.attempt(() -> t.twrInside(n, fail)));
                out.add(t.attempt(() -> t.twrAround(n, fail)));
            }
        }
        out.add("free=" + !Thread.holdsLock(t.lock));
        return out + " " + t.log;
    }
}
