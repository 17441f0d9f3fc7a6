package shapes;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/** synchronized inside a lambda, a lambda created and run inside a synchronized block, a method reference. */
public class Lambdas {
    private final Object lock = new Object();
    private int count;
    private final List<String> log = new ArrayList<String>();

    public static String run() {
        final Lambdas l = new Lambdas();
        Runnable inc = () -> {
            synchronized (l.lock) {
                l.count = Exclusion.racyIncrement(l.count);
            }
        };
        int failures = Exclusion.hammer(500, inc);
        IntSupplier read = () -> {
            synchronized (l.lock) {
                return Thread.holdsLock(l.lock) ? l.count : -1;
            }
        };
        Supplier<String> inside;
        synchronized (l) {
            inside = () -> "lambda-in-block holds=" + Thread.holdsLock(l);
            l.log.add(inside.get());
        }
        l.log.add(inside.get());
        Exclusion.hammer(100, l::logged);
        return "count=" + read.getAsInt() + " failures=" + failures + " " + l.log.subList(0, 2) + " logged=" + l.log.size();
    }

    private synchronized void logged() {
        log.add("x");
    }
}
