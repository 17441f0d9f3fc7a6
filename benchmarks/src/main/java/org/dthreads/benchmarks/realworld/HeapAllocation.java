package org.dthreads.benchmarks.realworld;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * Bytes the whole JVM allocated on the heap since {@link #start()}, every thread's (also the threads a round starts
 * and ends, which per-thread counters lose): the heap's growth plus what every collection freed, from the collectors'
 * notifications. Heap pools only (metaspace and code cache are not heap). Accurate to about one G1 region per
 * reading (eden's usage is counted in regions); memory that a concurrent cycle frees outside a pause is not counted.
 *
 * <p>Threads: the notifications arrive on a JMX thread, so {@link #allocatedBytes()} first waits (bounded) until
 * every collection the collectors have counted was also seen here; {@link #freed} and {@link #seen} are atomics.
 */
final class HeapAllocation {
    private final Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(p -> p.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName).collect(Collectors.toSet());
    private final AtomicLong freed = new AtomicLong();
    private final AtomicLong seen = new AtomicLong();
    private final long collectionsAtStart;
    private final long usedAtStart;

    private HeapAllocation() {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener((n, handback) -> {
                    if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                        var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData()).getGcInfo();
                        freed.addAndGet(heapUsed(info.getMemoryUsageBeforeGc()) - heapUsed(info.getMemoryUsageAfterGc()));
                        seen.incrementAndGet();
                    }
                }, null, null);
            }
        }
        collectionsAtStart = collections();
        usedAtStart = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Starts counting now. */
    static HeapAllocation start() {
        return new HeapAllocation();
    }

    /** Bytes allocated since {@link #start()}. */
    long allocatedBytes() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (seen.get() < collections() - collectionsAtStart && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(10); // a collection's notification still on its way
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() - usedAtStart + freed.get();
    }

    /** The metaspace in use now, bytes (0 if the JVM has no pool of that name). */
    static long metaspaceUsed() {
        return ManagementFactory.getMemoryPoolMXBeans().stream().filter(p -> p.getName().equals("Metaspace"))
                .mapToLong(p -> p.getUsage().getUsed()).sum();
    }

    private long heapUsed(Map<String, MemoryUsage> byPool) {
        return byPool.entrySet().stream().filter(e -> heapPools.contains(e.getKey()))
                .mapToLong(e -> e.getValue().getUsed()).sum();
    }

    private static long collections() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(gc -> Math.max(0, gc.getCollectionCount())).sum();
    }
}
