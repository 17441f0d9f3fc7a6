package shapes;

import java.util.ArrayList;
import java.util.List;

/** Runs a task on 4 threads and reports failures; shared by the shape fixtures. */
public final class Exclusion {
    private Exclusion() {}

    /** Runs {@code task} 4 x {@code rounds} times concurrently; returns the number of exceptions. */
    public static int hammer(int rounds, Runnable task) {
        final int[] failures = new int[1];
        List<Thread> threads = new ArrayList<Thread>();
        for (int t = 0; t < 4; t++) {
            threads.add(new Thread(new Runnable() {
                public void run() {
                    for (int i = 0; i < rounds; i++) {
                        try {
                            task.run();
                        } catch (RuntimeException e) {
                            synchronized (failures) {
                                failures[0]++;
                            }
                        }
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
        return failures[0];
    }

    /** A read-modify-write with a yield in the middle: loses updates unless excluded. */
    public static int racyIncrement(int value) {
        int v = value;
        Thread.yield();
        return v + 1;
    }
}
