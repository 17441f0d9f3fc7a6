package example.callbacks.edges;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.dthreads.ClassScope;
import org.dthreads.DThreads;
import org.dthreads.junit.SiteContext;

/**
 * The edges of {@code -Ddthreads.callbacks=original} as scenes between two sites, A (whose thread {@code T-<scene>}
 * calls B) and B (which serves the call and calls A back), whatever carries the calls
 * ({@link JacorbScenesSite.Edges} on JacORB, {@link GlassFishScenesSite.Edges} on the GlassFish ORB). The test drives each scene step by step from outside,
 * so every ordering it asserts is forced by latches the test releases, not by timing.
 *
 * <p>Operations served (the one remote operation {@code call(op, arg)}), at B: {@code replyDuringCallback} (a
 * helper thread bound to the caller's class calls A back with {@code cbBlock}; this thread replies once latch
 * {@code reply} is released), {@code waitHere} (an emulated wait of 30 s), {@code hold} (waits for latch
 * {@code hold}), {@code callbackWaits} / {@code callbackNotifies} (calls A back with {@code cbWait} /
 * {@code cbNotify} on this thread), {@code burst} (callback 1, then 2 and 3 when the test sends them
 * ({@code send n}), each from its own thread bound to the caller's class, each {@code cbGate}). At A:
 * {@code cbBlock} (waits for latch {@code callback}), {@code cbWait} (waits on the emulated monitor {@link #gate}
 * until it is opened), {@code cbNotify} (opens it), {@code cbGate} (waits for latch {@code gate}). Every callback
 * names the thread it runs on: the {@code T-} thread if it is one, else {@code other}.
 *
 * <h2>Concurrency</h2>
 * {@link #gate}'s monitor (emulated: this class is rewritten) guards {@code Gate.opened}. Everything else is a
 * concurrent collection, a latch or an atomic; {@link #events} is the site's journal, in the order things
 * happened on this site.
 */
public final class EdgeScenes implements Scenes {

    private static final long BOUND_SECONDS = 60;

    private final Peers peers;
    private final Gate gate = new Gate();
    private final ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
    private final Map<String, CountDownLatch> latches = new ConcurrentHashMap<>();
    private final Map<String, Thread> threads = new ConcurrentHashMap<>();
    private final Map<String, FutureTask<String>> tasks = new ConcurrentHashMap<>();
    private final Map<String, String> outcomes = new ConcurrentHashMap<>();
    private final Map<String, Thread> callbackThreads = new ConcurrentHashMap<>();
    private final Map<String, String> callbackResults = new ConcurrentHashMap<>();
    private final AtomicInteger runningCallbacks = new AtomicInteger();
    private final CountDownLatch burstSent = new CountDownLatch(2);
    private volatile long burstClass;

    /** The emulated monitor of {@code cbWait} and {@code cbNotify}. */
    private static final class Gate {
        boolean opened; // guarded by this
    }

    public EdgeScenes(Peers peers) {
        this.peers = peers;
    }

    @Override
    public void registerSteps(SiteContext ctx) {
        ctx.step("start", args -> start(args.get(0), args.get(1)));
        ctx.step("outcome", args -> outcome(args.get(0)));
        ctx.step("peek", args -> {
            String outcome = outcomes.get(args.get(0));
            return outcome == null ? "running" : outcome;
        });
        ctx.step("interrupt", args -> interrupt(args.get(0), args.get(1)));
        ctx.step("status", args -> String.valueOf(threads.get(args.get(0)).isInterrupted()));
        ctx.step("release", args -> {
            events.add("released " + args.get(0));
            latch(args.get(0)).countDown();
            return "released";
        });
        ctx.step("mark", args -> {
            events.add(args.get(0));
            return "marked";
        });
        ctx.step("events", args -> String.join(" ; ", new ArrayList<>(events)));
        ctx.step("notify", args -> {
            synchronized (gate) {
                events.add("a local thread notifies");
                gate.opened = true;
                gate.notifyAll();
            }
            return "notified";
        });
        ctx.step("send", args -> {
            sendCallback(burstClass, "cbGate", args.get(0));
            burstSent.countDown();
            return "sent";
        });
    }

    /** Starts thread {@code T-<scene>}, which calls {@code site}'s {@code call(scene, "")} and keeps the outcome. */
    private String start(String site, String scene) {
        String name = "T-" + scene;
        FutureTask<String> task = new FutureTask<>(() -> {
            String r;
            try {
                r = peers.call(site, scene, "");
            } catch (Exception e) {
                r = "failed: " + e;
            }
            events.add(name + "'s call returned");
            outcomes.put(name, r + "; " + name + "'s status " + Thread.currentThread().isInterrupted());
            return r;
        });
        Thread t = new Thread(task, name);
        t.setDaemon(true);
        threads.put(name, t);
        tasks.put(name, task);
        t.start();
        return "started " + name;
    }

    private String outcome(String name) throws InterruptedException {
        threads.get(name).join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
        String outcome = outcomes.get(name);
        return outcome == null ? name + " still running" : outcome;
    }

    /**
     * {@code routed}: {@code t.interrupt()} in application code (rewritten: dthreads routes it);
     * {@code raw}: {@code FutureTask.cancel(true)}, whose {@code interrupt()} is the JDK's own, unrouted.
     */
    private String interrupt(String name, String how) {
        Thread t = threads.get(name);
        if (how.equals("raw")) {
            tasks.get(name).cancel(true);
        } else {
            t.interrupt();
        }
        return "isInterrupted " + t.isInterrupted();
    }

    @Override
    public String serve(String op, String arg) throws Exception {
        switch (op) {
            case "replyDuringCallback":
                sendCallback(DThreads.currentClass(), "cbBlock", "1");
                await("reply");
                return "B replied";
            case "waitHere":
                return waitHere();
            case "hold":
                events.add("B holds");
                await("hold");
                return "B released";
            case "callbackWaits":
                return "B got: " + peers.call("A", "cbWait", "");
            case "callbackNotifies":
                return "B got: " + peers.call("A", "cbNotify", "");
            case "burst":
                return burst();
            case "cbBlock":
                events.add("callback " + arg + " starts on " + who());
                await("callback");
                events.add("callback " + arg + " ends");
                return "callback " + arg + " done";
            case "cbWait":
                return callbackWait();
            case "cbNotify":
                synchronized (gate) {
                    events.add("callback notifies on " + who());
                    gate.opened = true;
                    gate.notifyAll();
                }
                return "callback notified on " + who();
            case "cbGate":
                int running = runningCallbacks.incrementAndGet();
                events.add("callback " + arg + " starts on " + who() + " (" + running + " running)");
                await("gate");
                events.add("callback " + arg + " ends");
                runningCallbacks.decrementAndGet();
                return "callback " + arg + " done";
            default:
                throw new IllegalArgumentException("no operation " + op);
        }
    }

    private String waitHere() {
        synchronized (gate) {
            try {
                gate.wait(30_000);
                return "B's wait timed out";
            } catch (InterruptedException e) {
                return "B's wait interrupted, holds lock " + Thread.holdsLock(gate) + ", status "
                        + Thread.currentThread().isInterrupted();
            }
        }
    }

    /** A callback that waits on {@link #gate} (emulated) until a local thread or another callback opens it. */
    private String callbackWait() {
        synchronized (gate) {
            gate.opened = false;
            events.add("callback waits on " + who());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            try {
                while (!gate.opened) {
                    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (left <= 0) {
                        return "callback's wait timed out";
                    }
                    gate.wait(left);
                }
                return "callback on " + who() + " notified, holds " + Thread.holdsLock(gate);
            } catch (InterruptedException e) {
                return "callback's wait on " + who() + " interrupted, holds " + Thread.holdsLock(gate) + ", status "
                        + Thread.currentThread().isInterrupted();
            }
        }
    }

    /** Callback 1 now; 2 and 3 when the test sends them; then all three results. */
    private String burst() throws Exception {
        burstClass = DThreads.currentClass();
        sendCallback(burstClass, "cbGate", "1");
        if (!burstSent.await(BOUND_SECONDS, TimeUnit.SECONDS)) {
            return "B: callbacks 2 and 3 were not sent";
        }
        List<String> results = new ArrayList<>();
        for (String n : List.of("1", "2", "3")) {
            callbackThreads.get(n).join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
            results.add(callbackResults.getOrDefault(n, "callback " + n + " unanswered"));
        }
        return "B got: " + String.join(", ", results);
    }

    /** A thread of this site bound to {@code threadClass} calls A's {@code op(n)}: a callback of that class. */
    private void sendCallback(long threadClass, String op, String n) {
        Thread t = new Thread(() -> {
            try (ClassScope scope = DThreads.bind(threadClass)) {
                callbackResults.put(n, peers.call("A", op, n));
            } catch (Exception e) {
                callbackResults.put(n, "failed: " + e);
            }
        }, "callback-sender-" + n);
        t.setDaemon(true);
        callbackThreads.put(n, t);
        t.start();
    }

    private String who() {
        Thread me = Thread.currentThread();
        for (Map.Entry<String, Thread> e : threads.entrySet()) {
            if (e.getValue() == me) {
                return e.getKey();
            }
        }
        return "other";
    }

    private CountDownLatch latch(String name) {
        return latches.computeIfAbsent(name, k -> new CountDownLatch(1));
    }

    private void await(String latch) throws InterruptedException {
        if (!latch(latch).await(BOUND_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException("latch " + latch + " was not released within " + BOUND_SECONDS + " s");
        }
    }
}
