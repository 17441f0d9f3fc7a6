package example.conformance;

import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadMXBean;

/**
 * Whether this class's monitors are the JVM's: inside a {@code synchronized} method, the JVM lists a
 * monitor it owns in {@link ThreadMXBean#getThreadInfo(long[], boolean, boolean)}; an emulated
 * (dthreads) monitor is not a JVM monitor, so it is missing there.
 */
public final class Probe {

    public static String verdict() {
        return new Probe().check();
    }

    synchronized String check() {
        return monitorOf(this, Thread.holdsLock(this));
    }

    /** Called while holding {@code o}'s monitor ({@code heldByCaller}: the caller's {@code Thread.holdsLock}, rewritten with it): whether the JVM or dthreads implements it. */
    public static String monitorOf(Object o, boolean heldByCaller) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        MonitorInfo[] locked = mx.getThreadInfo(new long[] {Thread.currentThread().getId()}, true, false)[0]
                .getLockedMonitors();
        int id = System.identityHashCode(o);
        for (MonitorInfo m : locked) {
            if (m.getIdentityHashCode() == id && m.getClassName().equals(o.getClass().getName())) {
                return "native";
            }
        }
        return heldByCaller ? "emulated" : "not held";
    }

    public static void main(String[] args) {
        System.out.println("probe: " + verdict());
    }
}
