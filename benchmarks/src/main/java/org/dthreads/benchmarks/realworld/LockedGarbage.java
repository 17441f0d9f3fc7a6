package org.dthreads.benchmarks.realworld;

import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import org.dthreads.benchmarks.realworld.app.LockedCell;

/**
 * Memory: {@code count} short-lived objects, each locked once by rewritten code (half through a
 * synchronized method of an application class, half through a synchronized block on a fresh plain
 * {@code Object}); meant for {@code -Xmx64m} under the agent, where a monitor side table that kept
 * them, or kept them long, runs out of heap. Then two retention checks: 1,000 locked objects and a
 * class loader whose class was locked must be collectable after their last use (polled with
 * {@code System.gc()} for at most 10 s). Throws if anything is retained.
 */
final class LockedGarbage {

    private static final long RETENTION_WAIT_NANOS = 10_000_000_000L;

    private LockedGarbage() {}

    static long run(int count) throws Exception {
        long[] gc0 = gcTotals();
        long t0 = System.nanoTime();
        long sum = 0;
        for (int i = 0; i < count; i += 2) {
            sum += new LockedCell(i).addAndGet(1);
            sum += LockedCell.lockFresh(i);
        }
        long[] gc1 = gcTotals();
        System.out.printf("note %,d locked objects in a %d MB heap: done in %.0f ms, %d collections, %d ms in GC%n", count,
                Runtime.getRuntime().maxMemory() >> 20, (System.nanoTime() - t0) / 1e6, gc1[1] - gc0[1], gc1[0] - gc0[0]);
        checkNothingRetained();
        return sum;
    }

    private static void checkNothingRetained() throws Exception {
        List<WeakReference<Object>> refs = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            LockedCell cell = new LockedCell(i);
            cell.addAndGet(1);
            refs.add(new WeakReference<>(cell));
        }
        refs.add(new WeakReference<>(lockInThrowawayLoader()));
        long deadline = System.nanoTime() + RETENTION_WAIT_NANOS;
        long alive;
        do {
            System.gc();
            alive = refs.stream().filter(r -> r.get() != null).count();
            if (alive > 0) {
                Thread.sleep(50); // waiting for the collector, not for another thread
            }
        } while (alive > 0 && System.nanoTime() < deadline);
        if (alive > 0) {
            boolean loaderAlive = refs.get(refs.size() - 1).get() != null;
            throw new IllegalStateException((alive - (loaderAlive ? 1 : 0)) + " of 1000 locked objects"
                    + (loaderAlive ? " and the class loader of a locked class" : "")
                    + " still reachable 10 s after their last use");
        }
    }

    /** {total collection ms, collections} over every collector. */
    private static long[] gcTotals() {
        long ms = 0;
        long count = 0;
        for (java.lang.management.GarbageCollectorMXBean gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += Math.max(0, gc.getCollectionTime());
            count += Math.max(0, gc.getCollectionCount());
        }
        return new long[] {ms, count};
    }

    /** Loads {@link LockedCell} in a new class loader, locks an instance once and returns the loader. */
    private static ClassLoader lockInThrowawayLoader() throws Exception {
        URL jar = LockedGarbage.class.getProtectionDomain().getCodeSource().getLocation();
        URLClassLoader loader = new URLClassLoader(new URL[] {jar}, ClassLoader.getPlatformClassLoader());
        Class<?> cell = loader.loadClass(LockedCell.class.getName());
        if (cell.getClassLoader() != loader) {
            throw new IllegalStateException("LockedCell not loaded by the throwaway loader");
        }
        Object instance = cell.getConstructor(long.class).newInstance(1L);
        Method add = cell.getMethod("addAndGet", long.class);
        add.invoke(instance, 1L);
        loader.close();
        return loader;
    }
}
