package example.callbacks.edges;

import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.dthreads.ClassScope;
import org.dthreads.DThreads;
import org.dthreads.junit.SiteContext;

/**
 * Timeouts against callbacks, in {@code -Ddthreads.callbacks=original} and take-over mode. Sites A and B serve one
 * operation {@code call(op, arg)}. A's thread {@code T-<scene>} calls B's {@code call(scene)}; the outcome is kept
 * ({@code outcome}, {@code peek}, {@code elapsed}). Two kinds of timeout:
 * <ul>
 *   <li>{@code start scene}: through a plain reference, so the call's timeout is the ORB's own reply timeout, set
 *       for every call by a JVM property and checked by the waiting thread itself
 *       ({@code IiopOriginalReplyTimeoutTest}: JacORB's {@code jacorb.connection.client.pending_reply_timeout}, {@link JacorbScenesSite.ReplyTimeouts}; the
 *       GlassFish ORB's {@code com.sun.corba.ee.transport.ORBWaitForResponseTimeout},
 *       {@link GlassFishScenesSite.ReplyTimeouts}).</li>
 *   <li>{@code start scene policy millis}: through a reference that carries a CORBA Messaging timeout policy
 *       ({@link TimedCall}; {@code IiopOriginalTimeoutTest}, {@link JacorbScenesSite.PolicyTimeouts}). Every other
 *       call (callbacks, their own calls) goes through plain references ({@link Scenes.Peers}), so a deadline on them
 *       can only come from the caller's call.</li>
 * </ul>
 *
 * <p>Scenes served at B: {@code silent} (waits for latch {@code reply}), {@code ticking} (calls A's {@code cbQuick}
 * every 200 ms, at most 25 times or until latch {@code stop}, then waits for {@code reply}),
 * {@code callbackThenReply} ({@code cbQuick}, then waits for {@code reply}), {@code callbackBlocks}
 * ({@code cbBlock}, then waits for {@code reply}), {@code blockingCallbackThenReply} ({@code cbBlock}, then replies
 * at once), {@code replyDuringCallback} (a thread bound to the caller's class calls A's {@code cbBlock}; this one
 * replies when {@code reply} is released), {@code callbackCallsOut} ({@code cbNested}, then waits for
 * {@code reply}), {@code callingCallbackThenReply} ({@code cbCallsOut}, then replies at once), {@code lateCallback}
 * (waits for latch {@code late}, then a thread bound to the caller's class calls A's {@code cbQuick}), {@code slow}
 * (waits for {@code slow}), {@code ping}. At A: {@code cbQuick}, {@code cbBlock} (waits for {@code callback}),
 * {@code cbNested} (waits for {@code go}, then calls B's {@code slow} and says how long that took),
 * {@code cbCallsOut} (calls B's {@code slow} at once). Callbacks name the thread they run on: the {@code T-} thread
 * or {@code other}. Step {@code ping} makes a call to B from a fresh thread. {@link #events} is the site's journal.
 *
 * <h2>Concurrency</h2>
 * Concurrent collections and latches only. Each {@code T-} thread writes its own entries.
 */
public final class TimeoutScenes implements Scenes {

    /** Calls {@code call(op, "")} on the named site's object through a reference with a timeout policy. */
    public interface TimedCall {
        String call(String site, String op, String policy, long millis) throws Exception;
    }

    private static final long BOUND_SECONDS = 60;

    private final Peers peers;
    private final TimedCall timed; // null: no timeout policies here
    private final ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
    private final Map<String, CountDownLatch> latches = new ConcurrentHashMap<>();
    private final Map<String, Thread> threads = new ConcurrentHashMap<>();
    private final Map<String, Long> started = new ConcurrentHashMap<>();
    private final Map<String, String> outcomes = new ConcurrentHashMap<>();

    public TimeoutScenes(Peers peers) {
        this(peers, null);
    }

    public TimeoutScenes(Peers peers, TimedCall timed) {
        this.peers = peers;
        this.timed = timed;
    }

    @Override
    public void registerSteps(SiteContext ctx) {
        ctx.step("start", args -> start(args.get(0), args.size() == 1 ? () -> peers.call("B", args.get(0), "")
                : timedCall(args.get(0), args.get(1), Long.parseLong(args.get(2)))));
        ctx.step("outcome", args -> {
            threads.get(args.get(0)).join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
            return outcomes.getOrDefault(args.get(0), args.get(0) + " still running");
        });
        ctx.step("peek", args -> outcomes.getOrDefault(args.get(0), "running"));
        ctx.step("elapsed", args -> Long.toString(
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started.get(args.get(0)))));
        ctx.step("release", args -> {
            events.add("released " + args.get(0));
            latch(args.get(0)).countDown();
            return "released";
        });
        ctx.step("ping", args -> { // a call to B on a fresh thread (another class): its reply follows earlier ones
            String[] r = new String[1];
            Thread t = new Thread(() -> r[0] = outcome(() -> peers.call("B", "ping", "")), "pinger");
            t.start();
            t.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
            return String.valueOf(r[0]);
        });
        ctx.step("events", args -> String.join(" ; ", new ArrayList<>(events)));
    }

    /** Thread {@code T-<scene>} makes {@code call}, B's {@code call(scene)}; the outcome is kept with its time. */
    private String start(String scene, Call call) {
        String name = "T-" + scene;
        Thread t = new Thread(() -> {
            started.put(name, System.nanoTime());
            String r = outcome(call);
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started.get(name));
            events.add(name + "'s call ended");
            outcomes.put(name, r + " after " + took + " ms");
        }, name);
        t.setDaemon(true);
        threads.put(name, t);
        t.start();
        return "started " + name;
    }

    /** B's {@code call(scene)} through a reference with the timeout {@code policy} of {@code millis}. */
    private Call timedCall(String scene, String policy, long millis) {
        if (timed == null) {
            throw new IllegalStateException("no timeout policies on this site");
        }
        return () -> timed.call("B", scene, policy, millis);
    }

    private interface Call {
        String call() throws Exception;
    }

    private static String outcome(Call call) {
        try {
            return "returned: " + call.call();
        } catch (Exception e) {
            return "failed: " + describe(e);
        }
    }

    @Override
    public String serve(String op, String arg) throws Exception {
        switch (op) {
            case "silent":
                events.add("B holds");
                await("reply");
                return "B replied";
            case "ticking": {
                for (int i = 1; i <= 25 && !latch("stop").await(200, TimeUnit.MILLISECONDS); i++) {
                    events.add("B tick " + i + " got " + peers.call("A", "cbQuick", ""));
                }
                await("reply");
                return "B replied";
            }
            case "callbackThenReply":
                events.add("B got " + peers.call("A", "cbQuick", ""));
                await("reply");
                return "B replied";
            case "callbackBlocks":
                events.add("B got " + peers.call("A", "cbBlock", ""));
                await("reply");
                return "B replied";
            case "blockingCallbackThenReply":
                events.add("B got " + peers.call("A", "cbBlock", ""));
                return "B replied";
            case "replyDuringCallback":
                callbackFromAnotherThread("cbBlock");
                await("reply");
                events.add("B replies");
                return "B replied";
            case "callbackCallsOut":
                events.add("B got " + peers.call("A", "cbNested", ""));
                await("reply");
                return "B replied";
            case "callingCallbackThenReply":
                events.add("B got " + peers.call("A", "cbCallsOut", ""));
                return "B replied";
            case "lateCallback":
                events.add("B holds");
                await("late");
                callbackFromAnotherThread("cbQuick");
                return "B replied";
            case "slow":
                events.add("B slow starts");
                await("slow");
                return "slow done";
            case "ping":
                return "pong";
            case "cbQuick":
                events.add("callback on " + who());
                return "quick on " + who();
            case "cbBlock":
                events.add("callback starts on " + who());
                await("callback");
                events.add("callback ends");
                return "callback done on " + who();
            case "cbNested": {
                events.add("callback waits on " + who());
                await("go");
                long t0 = System.nanoTime();
                String r = outcome(() -> peers.call("B", "slow", ""));
                return "nested " + r + " after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms";
            }
            case "cbCallsOut":
                events.add("callback calls out on " + who());
                try {
                    return "nested got " + peers.call("B", "slow", "");
                } catch (Exception e) {
                    return "nested failed: " + describe(e);
                }
            default:
                throw new IllegalArgumentException("no operation " + op);
        }
    }

    /** A thread of this site bound to the current thread's class calls A's {@code op}: a callback of that class. */
    private void callbackFromAnotherThread(String op) {
        long threadClass = DThreads.currentClass();
        Thread t = new Thread(() -> {
            String r;
            try (ClassScope scope = DThreads.bind(threadClass)) {
                r = peers.call("A", op, "");
            } catch (Exception e) {
                r = "failed: " + describe(e);
            }
            events.add("B got " + r);
        }, "callback-sender");
        t.setDaemon(true);
        t.start();
    }

    /** The exception's class names down its causes: {@code TIMEOUT}, {@code RemoteException < COMM_FAILURE}. */
    static String describe(Throwable e) {
        StringBuilder s = new StringBuilder(e.getClass().getSimpleName());
        for (Throwable c = e.getCause(); c != null && c != e; c = c.getCause()) {
            s.append(" < ").append(c.getClass().getSimpleName());
        }
        return s.toString();
    }

    private String who() {
        Thread me = Thread.currentThread();
        return threads.entrySet().stream().filter(en -> en.getValue() == me).map(Map.Entry::getKey).findFirst()
                .orElse("other");
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
