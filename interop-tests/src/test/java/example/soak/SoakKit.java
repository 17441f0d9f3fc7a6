package example.soak;

import java.lang.management.ManagementFactory;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.dthreads.junit.SiteContext;

/**
 * What the soak sites of every protocol share ({@link SoakSite} over JRMP, {@link IiopSoakSite} over JacORB): the
 * drivers, the wait/notify mailbox at the end of each chain with its consumer thread, and the probe steps
 * {@code stats} (hops here, tokens put here, tokens consumed here, second visits of a chain here that ran on the thread of
 * its first visit: {@link SecondVisits}), {@code heap} (used bytes after a full GC),
 * {@code stopConsumer}, {@code busy} (emulated monitors still held or waited on, from the dthreads dump; -1 without
 * dthreads) and {@code threads} (live threads; of them the helper threads of outgoing calls in
 * {@code -Ddthreads.callbacks=original} mode, {@code dthreads-call-N}; and the threads inside that mode's code: a
 * caller waiting on its mailbox, a server thread handing a callback over, a helper in a call; not a helper idle
 * between calls).
 */
final class SoakKit {

    private static final String CALLBACKS_PACKAGE = "org.dthreads.monitor.internal.callbacks.";
    private static final String IDLE_HELPER = CALLBACKS_PACKAGE + "CallerHelper";

    /** One chain, started by a driver with a random token. */
    interface Chain {
        void run(long token) throws Exception;
    }

    private SoakKit() {}

    /**
     * Runs {@code threads} drivers, each starting chains one after the other until {@code seconds} have passed;
     * returns "chains p99-in-µs", or "STUCK" when a driver has not finished 60 s after that.
     */
    static String drive(int threads, long seconds, Chain chain) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        AtomicLong chains = new AtomicLong();
        long[][] latencies = new long[threads][];
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            int slot = t;
            new Thread(() -> {
                long[] mine = new long[1 << 16];
                int n = 0;
                try {
                    while (System.nanoTime() < deadline) {
                        long t0 = System.nanoTime();
                        chain.run(ThreadLocalRandom.current().nextLong());
                        if (n < mine.length) {
                            mine[n++] = System.nanoTime() - t0;
                        }
                        chains.incrementAndGet();
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                } finally {
                    latencies[slot] = Arrays.copyOf(mine, n);
                    done.countDown();
                }
            }, "soak-driver-" + t).start();
        }
        if (!done.await(seconds + 60, TimeUnit.SECONDS)) {
            return "STUCK";
        }
        long[] all = Arrays.stream(latencies).flatMapToLong(Arrays::stream).sorted().toArray();
        long p99 = all.length == 0 ? 0 : all[(int) Math.min(all.length - 1, Math.ceil(all.length * 0.99) - 1)];
        return chains.get() + " " + p99 / 1000;
    }

    /** Starts the consumer thread of {@code mailbox} and registers the probe steps; {@code hops} counts hops here. */
    static void probes(SiteContext ctx, Mailbox mailbox, LongSupplier hops, SecondVisits visits) {
        AtomicLong consumed = new AtomicLong();
        Thread consumer = new Thread(() -> {
            try {
                while (true) {
                    mailbox.take();
                    consumed.incrementAndGet();
                }
            } catch (InterruptedException e) {
                // site ends
            }
        }, "soak-consumer");
        consumer.setDaemon(true);
        consumer.start();
        ctx.step("stats", args -> hops.getAsLong() + " " + mailbox.put.get() + " " + consumed.get() + " "
                + visits.onFirstThread.get());
        ctx.step("heap", args -> {
            for (int i = 0; i < 3; i++) {
                System.gc();
            }
            Runtime rt = Runtime.getRuntime();
            return Long.toString(rt.totalMemory() - rt.freeMemory());
        });
        ctx.step("stopConsumer", args -> {
            consumer.interrupt();
            consumer.join(10_000);
            return Boolean.toString(!consumer.isAlive());
        });
        ctx.step("threads", args -> {
            Map<Thread, StackTraceElement[]> all = Thread.getAllStackTraces();
            long helpers = all.keySet().stream().filter(t -> t.getName().startsWith("dthreads-call-")).count();
            // an idle platform helper, parked in CallerHelper between calls, is not in a call
            long inCallbacks = all.values().stream().filter(stack -> Arrays.stream(stack)
                    .anyMatch(frame -> frame.getClassName().startsWith(CALLBACKS_PACKAGE)
                            && !frame.getClassName().equals(IDLE_HELPER))).count();
            return ManagementFactory.getThreadMXBean().getThreadCount() + " " + helpers + " " + inCallbacks;
        });
        ctx.step("busy", args -> {
            try {
                Class<?> dump = Class.forName("org.dthreads.monitor.MonitorDump");
                return Integer.toString(((List<?>) dump.getMethod("snapshot").invoke(null)).size());
            } catch (ReflectiveOperationException e) {
                return "-1";
            }
        });
    }

    /**
     * Whether a chain's second visit of this site (hops 3 to 5) runs on the thread of its first (hops 0 to 2): the
     * first marks its thread with the chain's token in a {@code ThreadLocal} until it returns, the second counts if
     * it sees the mark. With callbacks on the original thread every second visit does; in take-over mode none (it
     * runs on another server thread while the first visit's thread waits in its call).
     */
    static final class SecondVisits {
        private final ThreadLocal<Long> mark = new ThreadLocal<>();
        private final AtomicLong onFirstThread = new AtomicLong();

        /** At the start of hop {@code index}; true for a first visit, which must call {@link #left} when it returns. */
        boolean arrive(int index, long token) {
            if (index < 3) {
                mark.set(token);
                return true;
            }
            Long first = mark.get();
            if (first != null && first == token) {
                onFirstThread.incrementAndGet();
            }
            return false;
        }

        void left() {
            mark.remove();
        }
    }

    /** A bounded buffer with wait/notifyAll, drained by the consumer thread. */
    static final class Mailbox {
        private final ArrayDeque<Long> items = new ArrayDeque<>();
        final AtomicLong put = new AtomicLong();

        synchronized void put(long token) {
            while (items.size() >= 64) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            items.add(token);
            put.incrementAndGet();
            notifyAll();
        }

        synchronized long take() throws InterruptedException {
            while (items.isEmpty()) {
                wait();
            }
            long token = items.poll();
            notifyAll();
            return token;
        }
    }
}
