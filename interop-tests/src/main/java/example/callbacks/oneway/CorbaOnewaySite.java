package example.callbacks.oneway;

import example.zigzag.corba.Jacorb;
import java.time.Duration;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ARG_IN;
import org.omg.CORBA.Any;
import org.omg.CORBA.NVList;
import org.omg.CORBA.ORB;
import org.omg.CORBA.Policy;
import org.omg.CORBA.Request;
import org.omg.CORBA.ServerRequest;
import org.omg.CORBA.SetOverrideType;
import org.omg.CORBA.TCKind;
import org.omg.Messaging.SYNC_NONE;
import org.omg.Messaging.SYNC_SCOPE_POLICY_TYPE;
import org.omg.Messaging.SYNC_WITH_SERVER;
import org.omg.Messaging.SYNC_WITH_TARGET;
import org.omg.Messaging.SYNC_WITH_TRANSPORT;
import org.omg.PortableServer.DynamicImplementation;
import org.omg.PortableServer.POA;

/**
 * A oneway with a CORBA Messaging {@code SyncScope} whose servant calls its caller's site back (a two-way), on
 * JacORB with the dthreads ORB initializer (DII/DSI). Step {@code oneway SCOPE LOCK} ({@code SCOPE}: {@code NONE},
 * {@code TRANSPORT}, {@code SERVER}, {@code TARGET}, set on the reference with {@code _set_policy_override};
 * {@code LOCK}: {@code emulated}, a plain {@code Object}, or {@code native}, a {@code Vector}; or {@code none}, below) runs
 * on the step's
 * thread, the caller: it sets a {@code ThreadLocal}, takes the lock and sends {@code fire} to B, whose servant calls
 * {@code back} on A, which takes the same lock. When the oneway has returned, a caller that does not wait for the
 * servant (every scope but {@code TARGET}) waits until the callback is blocked on the lock, then releases it. The
 * step returns the events at A in order:
 * <ul>
 *   <li>{@code oneway returned};</li>
 *   <li>{@code callback entered on same|other thread} ({@code same}: the caller's {@code Thread} object);</li>
 *   <li>{@code caller releases the lock} (not for {@code TARGET});</li>
 *   <li>{@code callback took the lock while the caller holds it|after the caller released it, tl seen|fresh}
 *       ({@code seen}: the caller's {@code ThreadLocal} is visible).</li>
 * </ul>
 * With {@code LOCK} {@code none} the caller holds nothing; once the oneway has returned it calls {@code await} on B
 * (two-way), which returns once B's oneway servant has had its callback answered, so the callback comes while the
 * caller waits in a call of its own ({@code caller's call returned: callback answered}; the callback's event is
 * {@code callback ran, tl seen|fresh}).
 * Every wait of the caller is bounded (20 s: {@code no callback ...} events); a deadlock blocks the step.
 */
public final class CorbaOnewaySite implements SiteApp {

    private static final Duration BOUND = Duration.ofSeconds(20);
    private static final ThreadLocal<String> TOKEN = new ThreadLocal<>();
    private static final Set<Thread.State> PARKED = Set.of(Thread.State.BLOCKED, Thread.State.WAITING,
            Thread.State.TIMED_WAITING);

    private final ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
    private final Object emulated = new Object();
    private final Vector<String> natural = new Vector<>();
    private volatile Object lock;
    private volatile Thread caller;
    private volatile Thread holder;
    private volatile Thread callbackThread;
    private volatile CountDownLatch entered = new CountDownLatch(1);
    private volatile CountDownLatch done = new CountDownLatch(1);
    /** B: the oneway's servant has had its callback answered (one oneway per site run). */
    private final CountDownLatch fired = new CountDownLatch(1);

    @Override
    public void start(SiteContext ctx) throws Exception {
        ORB orb = Jacorb.orb(ctx, true);
        POA root = Jacorb.rootPoa(orb);
        Servant servant = new Servant(orb);
        org.omg.CORBA.Object self = root.id_to_reference(root.activate_object(servant));
        String own = orb.object_to_string(self);
        ctx.publish("ior", own);
        ctx.step("oneway", args -> oneway(orb, ctx.peerEndpoint("B", "ior"), own, args.get(0), args.get(1)));
    }

    private String oneway(ORB orb, String target, String own, String scope, String lockKind) throws Exception {
        events.clear();
        entered = new CountDownLatch(1);
        done = new CountDownLatch(1);
        callbackThread = null;
        Thread me = Thread.currentThread();
        caller = me;
        String token = scope + "-" + System.nanoTime();
        TOKEN.set(token);
        lock = lockKind.equals("native") ? natural : lockKind.equals("none") ? null : emulated;
        org.omg.CORBA.Object ref = withSyncScope(orb, orb.string_to_object(target), scope);
        if (lock == null) { // no lock: the caller calls B and waits there while the oneway's servant calls back
            Request request = ref._request("fire");
            request.add_in_arg().insert_string(own);
            request.add_in_arg().insert_string(token);
            request.send_oneway();
            events.add("oneway returned");
            Request call = orb.string_to_object(target)._request("await");
            call.set_return_type(orb.get_primitive_tc(TCKind.tk_string));
            call.invoke();
            events.add("caller's call returned: " + call.return_value().extract_string());
            if (!done.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
                events.add("no callback done");
            }
            return String.join(" ; ", events);
        }
        synchronized (lock) {
            holder = me;
            try {
                Request request = ref._request("fire");
                request.add_in_arg().insert_string(own);
                request.add_in_arg().insert_string(token);
                request.send_oneway();
                events.add("oneway returned");
                if (!scope.equals("TARGET")) { // the caller does not wait for the servant: the callback needs the lock
                    if (!entered.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
                        events.add("no callback entered");
                    } else if (!parked(callbackThread)) {
                        events.add("callback not blocked");
                    }
                    events.add("caller releases the lock");
                }
            } finally {
                holder = null;
            }
        }
        if (!done.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
            events.add("no callback done");
        }
        return String.join(" ; ", events);
    }

    private static boolean parked(Thread t) throws InterruptedException {
        long end = System.nanoTime() + BOUND.toNanos();
        while (System.nanoTime() < end) {
            if (PARKED.contains(t.getState())) {
                return true;
            }
            Thread.sleep(10); // polling another JVM-thread's state: no event to wait on
        }
        return false;
    }

    private static org.omg.CORBA.Object withSyncScope(ORB orb, org.omg.CORBA.Object ref, String scope) throws Exception {
        short value = switch (scope) {
            case "NONE" -> SYNC_NONE.value;
            case "TRANSPORT" -> SYNC_WITH_TRANSPORT.value;
            case "SERVER" -> SYNC_WITH_SERVER.value;
            case "TARGET" -> SYNC_WITH_TARGET.value;
            default -> throw new IllegalArgumentException(scope);
        };
        Any any = orb.create_any();
        any.insert_short(value);
        Policy policy = orb.create_policy(SYNC_SCOPE_POLICY_TYPE.value, any);
        return ref._set_policy_override(new Policy[] {policy}, SetOverrideType.SET_OVERRIDE);
    }

    /** The servant of both sites: {@code fire(callbackIor, token)} (oneway, B) and {@code back(token)} (A). */
    private final class Servant extends DynamicImplementation {
        private final ORB orb;

        Servant(ORB orb) {
            this.orb = orb;
        }

        @Override
        public void invoke(ServerRequest request) {
            switch (request.operation()) {
                case "fire" -> {
                    Any[] in = arguments(request, 2);
                    Request back = orb.string_to_object(in[0].extract_string())._request("back");
                    back.add_in_arg().insert_string(in[1].extract_string());
                    back.set_return_type(orb.get_primitive_tc(TCKind.tk_string));
                    back.invoke();
                    fired.countDown();
                }
                case "await" -> { // B: returns once the oneway's servant has had its callback answered
                    arguments(request, 0);
                    Any result = orb.create_any();
                    try {
                        result.insert_string(fired.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)
                                ? "callback answered" : "no callback answered");
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        result.insert_string("interrupted");
                    }
                    request.set_result(result);
                }
                case "back" -> {
                    Any[] in = arguments(request, 1);
                    Any result = orb.create_any();
                    result.insert_string(back(in[0].extract_string()));
                    request.set_result(result);
                }
                default -> throw new org.omg.CORBA.BAD_OPERATION(request.operation());
            }
        }

        private Any[] arguments(ServerRequest request, int n) {
            NVList args = orb.create_list(n);
            Any[] values = new Any[n];
            for (int i = 0; i < n; i++) {
                values[i] = orb.create_any();
                values[i].type(orb.get_primitive_tc(TCKind.tk_string));
                args.add_value("a" + i, values[i], ARG_IN.value);
            }
            request.arguments(args);
            return values;
        }

        private String back(String token) {
            Thread me = Thread.currentThread();
            String tl = token.equals(TOKEN.get()) ? "seen" : "fresh";
            events.add("callback entered on " + (me == caller ? "same" : "other") + " thread");
            callbackThread = me;
            entered.countDown();
            try {
                Object l = lock;
                if (l == null) {
                    events.add("callback ran, tl " + tl);
                } else {
                    synchronized (l) {
                        events.add("callback took the lock " + (holder != null ? "while the caller holds it"
                                : "after the caller released it") + ", tl " + tl);
                    }
                }
            } finally {
                done.countDown();
            }
            return "back";
        }

        @Override
        public String[] _all_interfaces(POA poa, byte[] objectId) {
            return new String[] {"IDL:example/callbacks/Oneway:1.0"};
        }
    }
}
