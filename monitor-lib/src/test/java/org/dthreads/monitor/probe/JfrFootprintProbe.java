package org.dthreads.monitor.probe;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.dthreads.monitor.Monitors;
import org.dthreads.monitor.Rewritten;

/**
 * Child JVM of {@code MonitorJfrFootprintForkedTest}: one entrant parks on an emulated monitor and one timed wait
 * runs, the two places where the runtime offers JFR events; prints {@code parked=true} when both happened. The
 * parent reads which classes the JVM loaded ({@code -Xlog:class+load}).
 */
public final class JfrFootprintProbe {

    /** Marked as the rewriter marks a class, so that its wait is emulated too. */
    @Rewritten
    static final class Box {
    }

    private JfrFootprintProbe() {}

    public static void main(String[] args) throws Exception {
        Box box = new Box();
        Monitors.enter(box);
        Thread entrant = new Thread(() -> {
            Monitors.enter(box);
            Monitors.exit(box);
        }, "footprint-entrant");
        entrant.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (entrant.getState() != Thread.State.WAITING && entrant.getState() != Thread.State.TIMED_WAITING) {
            if (System.nanoTime() > deadline || entrant.getState() == Thread.State.TERMINATED) {
                throw new AssertionError("the entrant did not park: " + entrant.getState());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        Monitors.exit(box);
        entrant.join(TimeUnit.SECONDS.toMillis(20));
        Monitors.enter(box);
        try {
            Monitors.waitOn(box, 5);
        } finally {
            Monitors.exit(box);
        }
        System.out.println("parked=" + !entrant.isAlive());
    }
}
