package example.callbacks.edges;

import example.zigzag.corba.Jacorb;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.dthreads.ClassScope;
import org.dthreads.DThreads;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.jacorb.util.Time;
import org.omg.CORBA.ARG_IN;
import org.omg.CORBA.Any;
import org.omg.CORBA.NVList;
import org.omg.CORBA.ORB;
import org.omg.CORBA.Policy;
import org.omg.CORBA.Request;
import org.omg.CORBA.ServerRequest;
import org.omg.CORBA.SetOverrideType;
import org.omg.CORBA.TCKind;
import org.omg.Messaging.RELATIVE_RT_TIMEOUT_POLICY_TYPE;
import org.omg.Messaging.REPLY_END_TIME_POLICY_TYPE;
import org.omg.PortableServer.DynamicImplementation;
import org.omg.PortableServer.POA;
import org.omg.TimeBase.TimeTHelper;
import org.omg.TimeBase.UtcTHelper;

/**
 * CORBA Messaging timeouts against callbacks on JacORB ({@code IiopOriginalTimeoutTest}): sites A and B, each a DSI
 * servant with one operation {@code call(op, arg)} called by DII. A's thread {@code T-<scene>} calls B's
 * {@code call(scene)} through a reference that carries a timeout policy ({@code start scene policy millis}:
 * {@code roundtrip} is {@code RelativeRoundtripTimeoutPolicy}, {@code replyEnd} is {@code ReplyEndTimePolicy} at
 * now + millis, set with {@code _set_policy_override}); every other call (callbacks, their own calls) goes through
 * plain references, so a deadline on them can only come from the caller's call.
 *
 * <p>Scenes served at B: {@code silent} (waits for latch {@code reply}), {@code callbackThenReply} (calls A's
 * {@code cbQuick}, then waits for {@code reply}), {@code callbackBlocks} (calls A's {@code cbBlock} and replies at
 * once), {@code replyDuringCallback} (a thread bound to the caller's class calls A's {@code cbBlock}; this one
 * replies when {@code reply} is released), {@code callbackCallsOut} (calls A's {@code cbNested}, which calls B's
 * {@code slow}, held by latch {@code slow}), {@code lateCallback} (waits for latch {@code late}, then a thread bound
 * to the caller's class calls A's {@code cbQuick}). At A: {@code cbQuick}, {@code cbBlock} (waits for latch
 * {@code callback}), {@code cbNested}. Callbacks name the thread they run on: the {@code T-} thread or
 * {@code other}. {@link #events} is the site's journal.
 *
 * <h2>Concurrency</h2>
 * Concurrent collections and latches only; {@code orb} and {@code ctx} are set in {@code start} before the servant
 * is published or a step can run. Each {@code T-} thread writes its own entries.
 */
public final class CorbaTimeoutSite implements SiteApp {

    private static final long BOUND_SECONDS = 60;

    private final ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
    private final Map<String, CountDownLatch> latches = new ConcurrentHashMap<>();
    private final Map<String, Thread> threads = new ConcurrentHashMap<>();
    private final Map<String, Long> started = new ConcurrentHashMap<>();
    private final Map<String, String> outcomes = new ConcurrentHashMap<>();
    private ORB orb;
    private SiteContext ctx;

    @Override
    public void start(SiteContext context) throws Exception {
        ctx = context;
        orb = Jacorb.orb(ctx, true);
        POA root = Jacorb.rootPoa(orb);
        org.omg.CORBA.Object self = root.id_to_reference(root.activate_object(new Servant()));
        ctx.publish("ior", orb.object_to_string(self));
        ctx.step("start", args -> start(args.get(0), args.get(1), Long.parseLong(args.get(2))));
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
        ctx.step("events", args -> String.join(" ; ", new ArrayList<>(events)));
    }

    /** Thread {@code T-<scene>} calls B's {@code call(scene)} with the timeout policy; the outcome is kept. */
    private String start(String scene, String policy, long millis) throws Exception {
        String name = "T-" + scene;
        org.omg.CORBA.Object target = orb.string_to_object(ctx.peerEndpoint("B", "ior"));
        Thread t = new Thread(() -> {
            started.put(name, System.nanoTime());
            String r;
            try {
                r = "returned: " + call(withTimeout(target, policy, millis), scene, "");
            } catch (RuntimeException e) {
                r = "failed: " + describe(e);
            }
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started.get(name));
            events.add(name + "'s call ended");
            outcomes.put(name, r + " after " + took + " ms");
        }, name);
        t.setDaemon(true);
        threads.put(name, t);
        t.start();
        return "started " + name;
    }

    private org.omg.CORBA.Object withTimeout(org.omg.CORBA.Object target, String policy, long millis) {
        Any any = orb.create_any();
        int type;
        switch (policy) {
            case "roundtrip" -> {
                TimeTHelper.insert(any, millis * 10_000L); // TimeT: 100 ns units
                type = RELATIVE_RT_TIMEOUT_POLICY_TYPE.value;
            }
            case "replyEnd" -> {
                UtcTHelper.insert(any, Time.corbaFuture(millis * 10_000L));
                type = REPLY_END_TIME_POLICY_TYPE.value;
            }
            default -> throw new IllegalArgumentException("no policy " + policy);
        }
        Policy p;
        try {
            p = orb.create_policy(type, any);
        } catch (org.omg.CORBA.PolicyError e) {
            throw new IllegalStateException("policy " + policy + " refused", e);
        }
        return target._set_policy_override(new Policy[] {p}, SetOverrideType.ADD_OVERRIDE);
    }

    private String serve(String op, String arg) throws Exception {
        switch (op) {
            case "silent":
                events.add("B holds");
                await("reply");
                return "B replied";
            case "callbackThenReply": {
                events.add("B got " + callPeer("A", "cbQuick"));
                await("reply");
                return "B replied";
            }
            case "callbackBlocks":
                events.add("B got " + callPeer("A", "cbBlock"));
                return "B replied";
            case "replyDuringCallback":
                callbackFromAnotherThread("cbBlock");
                await("reply");
                events.add("B replies");
                return "B replied";
            case "callbackCallsOut":
                events.add("B got " + callPeer("A", "cbNested"));
                return "B replied";
            case "slow":
                events.add("B slow starts");
                await("slow");
                return "slow done";
            case "lateCallback":
                events.add("B holds");
                await("late");
                callbackFromAnotherThread("cbQuick");
                return "B replied";
            case "cbQuick":
                events.add("callback on " + who());
                return "quick on " + who();
            case "cbBlock":
                events.add("callback starts on " + who());
                await("callback");
                events.add("callback ends");
                return "callback done on " + who();
            case "cbNested":
                events.add("callback calls out on " + who());
                try {
                    return "nested got " + callPeer("B", "slow");
                } catch (RuntimeException e) {
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
                r = callPeer("A", op);
            } catch (RuntimeException e) {
                r = "failed: " + describe(e);
            }
            events.add("B got " + r);
        }, "callback-sender");
        t.setDaemon(true);
        t.start();
    }

    private String callPeer(String site, String op) {
        return call(orb.string_to_object(ctx.peerEndpoint(site, "ior")), op, "");
    }

    private String call(org.omg.CORBA.Object target, String op, String arg) {
        Request request = target._request("call");
        request.add_in_arg().insert_string(op);
        request.add_in_arg().insert_string(arg);
        request.set_return_type(orb.get_primitive_tc(TCKind.tk_string));
        request.invoke();
        Exception e = request.env().exception();
        if (e instanceof RuntimeException re) {
            throw re;
        }
        if (e != null) {
            throw new IllegalStateException("call " + op + " failed", e);
        }
        return request.return_value().extract_string();
    }

    /** The exception's class names down its causes: {@code TIMEOUT}, {@code IllegalStateException < TIMEOUT}. */
    private static String describe(Throwable e) {
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

    private final class Servant extends DynamicImplementation {
        @Override
        public void invoke(ServerRequest request) {
            if (!request.operation().equals("call")) {
                throw new org.omg.CORBA.BAD_OPERATION(request.operation());
            }
            NVList args = orb.create_list(2);
            Any op = orb.create_any();
            op.type(orb.get_primitive_tc(TCKind.tk_string));
            Any arg = orb.create_any();
            arg.type(orb.get_primitive_tc(TCKind.tk_string));
            args.add_value("op", op, ARG_IN.value);
            args.add_value("arg", arg, ARG_IN.value);
            request.arguments(args);
            String result;
            try {
                result = serve(op.extract_string(), arg.extract_string());
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            Any any = orb.create_any();
            any.insert_string(result);
            request.set_result(any);
        }

        @Override
        public String[] _all_interfaces(POA poa, byte[] objectId) {
            return new String[] {"IDL:example/callbacks/edges/Timeouts:1.0"};
        }
    }
}
