package example.vthreads;

import java.nio.file.Files;
import java.nio.file.Path;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import jdk.jfr.Recording;
import org.dthreads.DThreads;
import org.dthreads.junit.SiteApp;
import org.dthreads.monitor.Deadlocks;
import org.dthreads.monitor.MonitorDump;
import org.dthreads.junit.SiteContext;

/**
 * A site for the virtual-thread tests (issue 18); runs on JDK 21 or later (virtual threads through
 * {@link VirtualThreads}). Exports a {@link VirtualHop}. Steps:
 * <ul>
 *   <li>{@code zigzag PEER LOCK}: a virtual thread sets a {@code ThreadLocal}, locks lock {@code LOCK} (see
 *       {@link VirtualHop#reenter}) and calls PEER, which calls back here into the same lock; returns
 *       {@code caller=virtual callback=<what reenter reported>}.</li>
 *   <li>{@code crowd PEER N LOCKS MILLIS BOUND_S}: N virtual threads; each holds a fresh object's (emulated) monitor
 *       and one of LOCKS shared (emulated) monitors across a call to PEER that works MILLIS and calls back
 *       into that shared monitor. Returns {@code done N ...} with what the callbacks reported, or, if not all
 *       finished within BOUND_S seconds, {@code stuck ...} with a thread dump that includes virtual threads.</li>
 *   <li>{@code abba}: two virtual threads deadlock on two emulated monitors here; returns dthreads' deadlock
 *       report ({@code Deadlocks.report()}) once it sees the cycle (at most 10 s), then {@link #DUMP_SEPARATOR}
 *       and the thread dump ({@code Deadlocks.threadDump()}).</li>
 *   <li>{@code waiters N}: N virtual threads wait ({@code wait()}, emulated) on one monitor until a last one
 *       opens it and calls {@code notifyAll()}; returns {@code done N} or, after 60 s, {@code stuck} with a dump.</li>
 *   <li>{@code blockedGroups GROUPS ENTRANTS MILLIS}: GROUPS groups of virtual threads; in each, one holds a monitor
 *       MILLIS while ENTRANTS others block on it; returns {@code done E} (E entries) or, after 120 s, {@code stuck}.</li>
 *   <li>{@code interruptCall PEER [platform]}: a virtual (or platform) thread calls PEER's {@code waitHere(20 s)}; once PEER reports the
 *       wait, this site interrupts the virtual thread; returns what the call returned and the thread's interrupt
 *       status afterwards.</li>
 *   <li>{@code live CLASS...}: how many instances of each class are live after a full collection.</li>
 *   <li>{@code jfrStart} / {@code jfrStop}: a JFR recording of {@code jdk.VirtualThreadPinned} (threshold 0, with
 *       stack traces) and of dthreads' own events as they are by default; {@code jfrStop} returns the file it wrote.</li>
 *   <li>{@code pinControl}: a virtual thread that sleeps inside a class initializer, which pins its carrier on
 *       JDK 21 to 25: the control that the recording sees a pinned park when there is one.</li>
 * </ul>
 */
public final class VirtualSite implements SiteApp {
    private final AtomicReference<Recording> recording = new AtomicReference<>();

    @Override
    public void start(SiteContext ctx) throws Exception {
        Node node = new Node();
        VirtualHop stub = (VirtualHop) UnicastRemoteObject.exportObject(node, 0);
        node.self = stub;
        ctx.createRegistry().rebind("hop", stub);
        ctx.publish("rmi.host", ctx.host());
        ctx.step("zigzag", args -> {
            VirtualHop peer = peer(ctx, args.get(0));
            int lock = Integer.parseInt(args.get(1));
            AtomicReference<String> out = new AtomicReference<>();
            Thread t = VirtualThreads.start("zigzag", () -> out.set(node.visit(peer, lock, UUID.randomUUID().toString(), 0)));
            t.join(20_000);
            if (t.isAlive()) {
                return "stuck\n" + VirtualThreads.groupedDump(12, 10);
            }
            return "caller=" + (VirtualThreads.isVirtual(t) ? "virtual" : "platform") + " callback=" + out.get();
        });
        ctx.step("crowd", args -> node.crowd(peer(ctx, args.get(0)), Integer.parseInt(args.get(1)),
                Integer.parseInt(args.get(2)), Long.parseLong(args.get(3)), Long.parseLong(args.get(4))));
        ctx.step("live", args -> VirtualThreads.liveInstances(args));
        ctx.step("abba", args -> abba());
        ctx.step("waiters", args -> waiters(Integer.parseInt(args.get(0))));
        ctx.step("blockedGroups", args -> blockedGroups(Integer.parseInt(args.get(0)), Integer.parseInt(args.get(1)),
                Long.parseLong(args.get(2))));
        ctx.step("interruptCall", args -> interruptCall(peer(ctx, args.get(0)), args.size() > 1 && args.get(1).equals("platform")));
        ctx.step("jfrStart", args -> {
            Recording r = new Recording();
            r.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            // dthreads' own events (org.dthreads.MonitorEnter, MonitorWait, Deadlock) stay as any recording has
            // them, enabled with their 20 ms threshold: committing them must not pin a carrier either
            r.start();
            recording.set(r);
            return "started";
        });
        ctx.step("jfrStop", args -> {
            try (Recording r = recording.getAndSet(null)) {
                r.stop();
                Path file = Files.createTempFile("vthreads-pinned", ".jfr");
                r.dump(file);
                return file.toString();
            }
        });
        ctx.step("pinControl", args -> {
            Thread t = VirtualThreads.start("pin-control", SlowInit::touch);
            t.join();
            return "pinned for " + SlowInit.MILLIS + " ms";
        });
    }

    private static String waiters(int n) throws InterruptedException {
        Object gate = new Object();
        boolean[] open = {false}; // guarded by gate
        AtomicInteger waiting = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            VirtualThreads.start("waiter-" + i, () -> {
                try {
                    synchronized (gate) {
                        waiting.incrementAndGet();
                        while (!open[0]) {
                            gate.wait();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            });
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (waiting.get() < n && System.nanoTime() < deadline) {
            Thread.sleep(10); // every waiter has been inside the monitor, so all wait or have waited
        }
        VirtualThreads.start("opener", () -> {
            synchronized (gate) {
                open[0] = true;
                gate.notifyAll();
            }
        });
        if (done.await(Math.max(1, TimeUnit.NANOSECONDS.toSeconds(deadline - System.nanoTime())), TimeUnit.SECONDS)) {
            return "done " + n;
        }
        return "stuck: " + (n - done.getCount()) + " of " + n + " done, " + waiting.get() + " entered\n"
                + VirtualThreads.groupedDump(14, 12);
    }

    /**
     * {@code groups} groups of virtual threads, each of its own class: a holder enters its group's (emulated) monitor
     * and holds it {@code millis} while {@code entrants} others block on it, so every entrant's blocked entry (over the
     * 20 ms threshold) commits {@code org.dthreads.MonitorEnter} naming the same owner as the rest of its group.
     */
    private static String blockedGroups(int groups, int entrants, long millis) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(groups * (1 + entrants));
        AtomicInteger entered = new AtomicInteger();
        for (int g = 0; g < groups; g++) {
            Object lock = new Object();
            CountDownLatch held = new CountDownLatch(1);
            VirtualThreads.start("holder-" + g, () -> {
                try {
                    synchronized (lock) {
                        held.countDown();
                        Thread.sleep(millis); // unmounts: the monitor is emulated
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            });
            for (int i = 0; i < entrants; i++) {
                VirtualThreads.start("entrant-" + g + "-" + i, () -> {
                    try {
                        held.await();
                        synchronized (lock) {
                            entered.incrementAndGet();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        done.countDown();
                    }
                });
            }
        }
        if (done.await(120, TimeUnit.SECONDS)) {
            return "done " + entered.get();
        }
        return "stuck: " + entered.get() + " entered\n" + VirtualThreads.groupedDump(14, 12);
    }

    private static String interruptCall(VirtualHop peer, boolean platform) throws Exception {
        AtomicReference<String> out = new AtomicReference<>();
        Runnable call = () -> {
            try {
                String answer = peer.waitHere(20_000);
                out.set(answer + "; status " + Thread.currentThread().isInterrupted());
            } catch (RemoteException e) {
                out.set("failed: " + e);
            }
        };
        Thread caller = platform ? new Thread(call, "platform-caller") : VirtualThreads.start("vt-caller", call);
        if (platform) {
            caller.start();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!peer.waiting() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        caller.interrupt(); // rewritten: routed to the class's wait at PEER
        caller.join(30_000);
        return caller.isAlive() ? "stuck\n" + VirtualThreads.groupedDump(14, 6) : out.get();
    }

    /** Between the deadlock report and the thread dump in what {@code abba} returns. */
    public static final String DUMP_SEPARATOR = "---- thread dump ----";

    private static String abba() throws InterruptedException {
        Object a = new Object();
        Object b = new Object();
        CountDownLatch bothHold = new CountDownLatch(2);
        VirtualThreads.start("vt-abba-1", () -> lockBoth(a, b, bothHold));
        VirtualThreads.start("vt-abba-2", () -> lockBoth(b, a, bothHold));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (long[] found = Deadlocks.findDeadlockedThreads(); (found == null || found.length < 2)
                && System.nanoTime() < deadline; found = Deadlocks.findDeadlockedThreads()) {
            Thread.sleep(20); // null: none yet
        }
        return Deadlocks.report() + "\n" + DUMP_SEPARATOR + "\n" + Deadlocks.threadDump();
    }

    /** Holds {@code first}, waits until the other thread holds its first, then takes {@code second}: AB-BA. */
    private static void lockBoth(Object first, Object second, CountDownLatch bothHold) {
        synchronized (first) {
            bothHold.countDown();
            try {
                bothHold.await();
            } catch (InterruptedException e) {
                return;
            }
            synchronized (second) {
                bothHold.countDown(); // never reached
            }
        }
    }

    private static VirtualHop peer(SiteContext ctx, String site) throws Exception {
        String host = ctx.peerEndpoint(site, "rmi.host");
        int port = Integer.parseInt(ctx.peerEndpoint(site, "rmi.registry.port"));
        return (VirtualHop) LocateRegistry.getRegistry(host, port).lookup("hop");
    }

    /** Sleeps in its static initializer, a frame a virtual thread cannot unmount from. */
    static final class SlowInit {
        static final long MILLIS = 50;

        static {
            try {
                Thread.sleep(MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        static void touch() {
            // the first call runs the initializer
        }
    }

    /**
     * A class with monitor code, so the rewriter gives its instances their emulated monitor in a field of their
     * own (a slot) rather than in the runtime's side table.
     */
    static final class Ticket {
        private int punched; // guarded by this

        synchronized int punch() {
            return ++punched;
        }
    }

    static final class Node implements VirtualHop {
        private static final ThreadLocal<String> TOKEN = new ThreadLocal<>();
        private final Object[] shared = new Object[1024];
        private final Vector<String> journal = new Vector<>(); // locks itself: a native-mode monitor
        private final Map<String, Thread> callers = new ConcurrentHashMap<>();
        VirtualHop self;
        private final Object waitLock = new Object();

        Node() {
            for (int i = 0; i < shared.length; i++) {
                shared[i] = new Object();
            }
        }

        private Object lock(int lock) {
            return lock == -1 ? this : lock == -2 ? journal : shared[lock];
        }

        /** The calling thread's visit: holds lock {@code lock} across a call to {@code peer} that calls back. */
        String visit(VirtualHop peer, int lock, String token, long millis) {
            TOKEN.set(token);
            callers.put(token, Thread.currentThread());
            try {
                synchronized (lock(lock)) {
                    return peer.call(self, lock, token, millis);
                }
            } catch (RemoteException e) {
                return "failed: " + e;
            } finally {
                callers.remove(token);
                TOKEN.remove();
            }
        }

        @Override
        public String call(VirtualHop back, int lock, String token, long millis) throws RemoteException {
            if (millis > 0) {
                try {
                    Thread.sleep(millis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return back == null ? "served" : back.reenter(lock, token);
        }

        @Override
        public String reenter(int lock, String token) {
            synchronized (lock(lock)) {
                Thread me = Thread.currentThread();
                return (VirtualThreads.isVirtual(me) ? "virtual" : "platform") + ","
                        + (token.equals(TOKEN.get()) ? "seen" : "fresh") + ","
                        + (callers.get(token) == me ? "same" : "other");
            }
        }

        @Override
        public String waitHere(long millis) {
            synchronized (waitLock) {
                try {
                    waitLock.wait(millis);
                    return "timed out";
                } catch (InterruptedException e) {
                    return "interrupted";
                }
            }
        }

        @Override
        public boolean waiting() {
            // registered as a waiter of the class: what an interrupt forwarded from the caller looks for
            return MonitorDump.text().matches("(?s).*waiting: \\[[^\\]]+\\].*");
        }

        String crowd(VirtualHop peer, int n, int locks, long millis, long boundSeconds) throws InterruptedException {
            CountDownLatch done = new CountDownLatch(n);
            Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
            Set<Long> classes = ConcurrentHashMap.newKeySet();
            long stepClass = DThreads.currentClass();
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                int lock = i % locks;
                String token = "crowd-" + i;
                VirtualThreads.start(token, () -> {
                    try {
                        classes.add(DThreads.currentClass());
                        Ticket own = new Ticket(); // a rewritten class: its emulated monitor lives in a slot of the object
                        String outcome;
                        synchronized (own) { // an emulated monitor of this thread alone, held across the call
                            own.punch();
                            outcome = visit(peer, lock, token, millis);
                        }
                        outcomes.computeIfAbsent(outcome, k -> new AtomicInteger()).incrementAndGet();
                    } catch (Throwable t) {
                        outcomes.computeIfAbsent("threw " + t, k -> new AtomicInteger()).incrementAndGet();
                    } finally {
                        done.countDown();
                    }
                });
            }
            boolean all = done.await(boundSeconds, TimeUnit.SECONDS);
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            String summary = " of " + n + " in " + ms + " ms; peak platform threads "
                    + java.lang.management.ManagementFactory.getThreadMXBean().getPeakThreadCount() + "; classes " + classes.size()
                    + (classes.contains(stepClass) ? " (one is the step thread's)" : "") + "; callbacks " + outcomes;
            if (all) {
                return "done" + summary;
            }
            return "stuck: " + (n - done.getCount()) + summary + "\n" + VirtualThreads.groupedDump(14, 12);
        }
    }
}
