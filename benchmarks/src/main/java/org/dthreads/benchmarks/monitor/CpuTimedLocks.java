package org.dthreads.benchmarks.monitor;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Random;
import org.dthreads.monitor.Monitors;

/**
 * The bodies of {@link MonitorCacheMiss} (pool of 1,000, fresh object) and {@link MonitorUncontended} timed in the
 * thread's CPU time ({@code getCurrentThreadCpuTime}), not wall time: on a machine loaded far beyond its cores (load
 * average 20-40 on 2 cores, issue 16) JMH's wall-clock scores varied tenfold, while CPU time does not count the time
 * the thread waits for a core. Not a JMH benchmark: one loop per case through a shared call site (a megamorphic call,
 * the same for every case), 5 warm-up reps then 15 reps of {@code n} operations; prints min and median ns/op.
 * Compare jars in interleaved JVMs.
 *
 * <pre>java -cp benchmarks.jar org.dthreads.benchmarks.monitor.CpuTimedLocks [n=2000000] [case regex]</pre>
 */
public final class CpuTimedLocks {
    static final class SlottedLock {
        @SuppressWarnings("unused")
        private transient Object $dthreads$monitor;
    }

    static int counter;
    static Object escaped;
    static SlottedLock[] slotted;
    static Object[] plain;
    static int[] order;
    static int next;
    static final Object LOCK = new Object();

    static int idx() {
        int i = order[next];
        next = next + 1 == order.length ? 0 : next + 1;
        return i;
    }

    static int emulatedSlottedPool() {
        SlottedLock l = slotted[idx()];
        Monitors.enter(l);
        try { return ++counter; } finally { Monitors.exit(l); }
    }
    static int nativeSlottedPool() {
        SlottedLock l = slotted[idx()];
        synchronized (l) { return ++counter; }
    }
    static int emulatedSlottedFresh() {
        SlottedLock l = new SlottedLock();
        escaped = l;
        Monitors.enter(l);
        try { return ++counter; } finally { Monitors.exit(l); }
    }
    static int nativeSlottedFresh() {
        SlottedLock l = new SlottedLock();
        escaped = l;
        synchronized (l) { return ++counter; }
    }
    static int emulatedPool() {
        Object l = plain[idx()];
        Monitors.enter(l);
        try { return ++counter; } finally { Monitors.exit(l); }
    }
    static int emulatedUncontended() {
        Monitors.enter(LOCK);
        try { return ++counter; } finally { Monitors.exit(LOCK); }
    }
    static int nativeUncontended() {
        synchronized (LOCK) { return ++counter; }
    }

    interface Op { int run(); }

    public static void main(String[] args) {
        int pool = 1000;
        int n = Integer.parseInt(args.length > 0 ? args[0] : "2000000");
        slotted = new SlottedLock[pool];
        plain = new Object[pool];
        for (int i = 0; i < pool; i++) { slotted[i] = new SlottedLock(); plain[i] = new Object(); }
        order = new int[pool];
        for (int i = 0; i < pool; i++) order[i] = i;
        Random r = new Random(42);
        for (int i = pool - 1; i > 0; i--) { int j = r.nextInt(i + 1); int t = order[i]; order[i] = order[j]; order[j] = t; }
        String[] names = {"emulatedSlottedPool", "nativeSlottedPool", "emulatedSlottedFresh", "nativeSlottedFresh",
                "emulatedPool", "emulatedUncontended", "nativeUncontended"};
        Op[] ops = {CpuTimedLocks::emulatedSlottedPool, CpuTimedLocks::nativeSlottedPool, CpuTimedLocks::emulatedSlottedFresh,
                CpuTimedLocks::nativeSlottedFresh, CpuTimedLocks::emulatedPool, CpuTimedLocks::emulatedUncontended,
                CpuTimedLocks::nativeUncontended};
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (int c = 0; c < ops.length; c++) {
            if (args.length > 1 && !names[c].matches(args[1])) continue;
            double[] reps = new double[15];
            for (int rep = -5; rep < reps.length; rep++) {
                long t0 = mx.getCurrentThreadCpuTime();
                int sink = 0;
                Op op = ops[c];
                for (int i = 0; i < n; i++) sink += op.run();
                long t1 = mx.getCurrentThreadCpuTime();
                if (sink == 42) System.out.print("");
                if (rep >= 0) reps[rep] = (t1 - t0) / (double) n;
            }
            Arrays.sort(reps);
            System.out.printf("%s min %.1f median %.1f%n", names[c], reps[0], reps[reps.length / 2]);
        }
    }
}
