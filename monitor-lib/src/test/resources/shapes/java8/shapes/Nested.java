package shapes;

/** Three nested synchronized blocks with break, continue, labelled break and return. */
public class Nested {
    private final Object a = new Object();
    private final Object b = new Object();
    private final Object c = new Object();

    int walk(int n) {
        int seen = 0;
        outer:
        for (int i = 0; i < n; i++) {
            synchronized (a) {
                for (int j = 0; j < n; j++) {
                    synchronized (b) {
                        if (j == 1) {
                            continue;
                        }
                        for (int k = 0; k < n; k++) {
                            synchronized (c) {
                                if (k == 2) {
                                    break;
                                }
                                if (i == 3 && j == 2) {
                                    continue outer;
                                }
                                if (i == 5) {
                                    break outer;
                                }
                                if (i * j * k == 48) {
                                    return -seen;
                                }
                                seen += Thread.holdsLock(a) && Thread.holdsLock(b) && Thread.holdsLock(c) ? 1 : 1000;
                            }
                        }
                    }
                }
            }
        }
        return seen;
    }

    int throwThrough(int depth) {
        synchronized (a) {
            synchronized (b) {
                synchronized (c) {
                    if (depth > 0) {
                        throw new IllegalStateException("deep " + depth);
                    }
                    return 7;
                }
            }
        }
    }

    public static String run() {
        Nested x = new Nested();
        StringBuilder out = new StringBuilder();
        for (int n : new int[] {0, 1, 3, 5, 8}) {
            out.append("walk(").append(n).append(")=").append(x.walk(n)).append(' ');
        }
        try {
            x.throwThrough(1);
        } catch (IllegalStateException e) {
            out.append(e.getMessage()).append(' ');
        }
        out.append(x.throwThrough(0));
        out.append(" free=").append(!Thread.holdsLock(x.a) && !Thread.holdsLock(x.b) && !Thread.holdsLock(x.c));
        return out.toString();
    }
}
