package example.soak;

import java.lang.management.ManagementFactory;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;

/**
 * Soak site: chains of depth 6 through all sites (A,B,C,A,B,C, whichever site's driver starts them)
 * with a synchronized hop at each, and at the end of each chain, inside {@code synchronized (firstHopStub)} (a remote
 * monitor its class already holds at the first site), a hand-off through a wait/notify mailbox drained by this
 * site's consumer thread. Steps: {@code run THREADS SECONDS} (drivers; returns chains, p99 µs),
 * {@code stats}, {@code heap} (used bytes after a full GC), {@code stopConsumer}, {@code busy} (emulated monitors still held
 * or waited on, from the dthreads dump; -1 without dthreads), {@code threads} (live threads; of them the helper threads
 * of outgoing calls in {@code -Ddthreads.callbacks=original} mode, {@code dthreads-call-N}; and the threads inside that
 * mode's code: a caller waiting on its mailbox, a server thread handing a callback over, a helper in a call).
 */
public final class SoakSite implements SiteApp {

    private static final String CALLBACKS_PACKAGE = "org.dthreads.monitor.internal.callbacks.";

    private final Node node = new Node();
    private final Mailbox mailbox = new Mailbox();
    private final AtomicLong consumed = new AtomicLong();

    @Override
    public void start(SiteContext ctx) throws Exception {
        SoakNode self = (SoakNode) UnicastRemoteObject.exportObject(node, 0);
        ctx.createRegistry().rebind("soak", self);
        ctx.publish("rmi.host", ctx.host());
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
        ctx.step("run", args -> {
            int threads = Integer.parseInt(args.get(0));
            long seconds = Long.parseLong(args.get(1));
            List<SoakNode> order = new ArrayList<>();
            for (String site : List.of("A", "B", "C")) {
                order.add(site.equals(ctx.siteName()) ? self : (SoakNode) LocateRegistry.getRegistry(
                        ctx.peerEndpoint(site, "rmi.host"), Integer.parseInt(ctx.peerEndpoint(site, "rmi.registry.port")))
                        .lookup("soak"));
            }
            // Every chain takes the sites' monitors in one global order (A, B, C, then re-enters them):
            // chains started in different orders would deadlock by design, dthreads or not.
            List<SoakNode> route = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                route.add(order.get(i % 3));
            }
            SoakNode first = ctx.siteName().equals("A") ? node : route.get(0);
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
                            first.hop(route, 0, ThreadLocalRandom.current().nextLong());
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
        });
        ctx.step("stats", args -> node.hops() + " " + mailbox.put.get() + " " + consumed.get());
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
            long inCallbacks = all.values().stream().filter(stack -> Arrays.stream(stack)
                    .anyMatch(frame -> frame.getClassName().startsWith(CALLBACKS_PACKAGE))).count();
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

    /** The hop: synchronized, with real work, calling the next site while holding this site's monitor. */
    final class Node implements SoakNode {
        private long hops;
        private long work;

        @Override
        public synchronized long hop(List<SoakNode> route, int index, long token) throws java.rmi.RemoteException {
            hops++;
            for (int i = 0; i < 50; i++) {
                work += Long.hashCode(token ^ i);
            }
            if (index == route.size() - 1) {
                // A remote monitor at the end of the chain: the first hop's node, a stub here, whose monitor
                // this chain's class holds at its site (the first hop is suspended in its call): the remote
                // enter takes it over under a lease, holdsLock asks the site, the exit hands it back.
                SoakNode home = route.get(0);
                synchronized (home) {
                    if (!Thread.holdsLock(home)) {
                        throw new IllegalStateException("the chain's class does not hold its first hop's monitor");
                    }
                    mailbox.put(token);
                }
                return token;
            }
            return route.get(index + 1).hop(route, index + 1, token);
        }

        synchronized long hops() {
            return hops;
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
