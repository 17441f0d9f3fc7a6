package example.callbacks.edges;

import example.zigzag.corba.Jacorb;
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
 * {@link Scenes} on JacORB with the dthreads ORB initializer: a DSI servant whose one operation {@code call(op, arg)}
 * is called by DII (no IDL) through plain references, so the only client timeout is what the JVM's JacORB
 * properties set (JacORB reads system properties, e.g. {@code -Djacorb.connection.client.pending_reply_timeout=<ms>})
 * or, in {@link PolicyTimeouts}, what T's own reference carries. Publishes its IOR as {@code ior}. Step
 * {@code policyCurrent}: what {@code resolve_initial_references("PolicyCurrent")} gives. One subclass a set of
 * scenes: {@link Edges}, {@link ReplyTimeouts}, {@link PolicyTimeouts}.
 */
public abstract class JacorbScenesSite implements SiteApp {

    /** {@link EdgeScenes} ({@code IiopOriginalThreadEdgesTest}). */
    public static final class Edges extends JacorbScenesSite {
        public Edges() {
            super((peers, timed) -> new EdgeScenes(peers));
        }
    }

    /** {@link TimeoutScenes} ({@code IiopOriginalReplyTimeoutTest}). */
    public static final class ReplyTimeouts extends JacorbScenesSite {
        public ReplyTimeouts() {
            super((peers, timed) -> new TimeoutScenes(peers));
        }
    }

    /** {@link TimeoutScenes} with CORBA Messaging timeout policies ({@code IiopOriginalTimeoutTest}). */
    public static final class PolicyTimeouts extends JacorbScenesSite {
        public PolicyTimeouts() {
            super(TimeoutScenes::new);
        }
    }

    private interface Factory {
        Scenes create(Scenes.Peers peers, TimeoutScenes.TimedCall timed);
    }

    private final Factory factory;

    private JacorbScenesSite(Factory factory) {
        this.factory = factory;
    }

    @Override
    public final void start(SiteContext ctx) throws Exception {
        ORB orb = Jacorb.orb(ctx, true);
        POA root = Jacorb.rootPoa(orb);
        Scenes scenes = factory.create(
                (site, op, arg) -> call(orb, orb.string_to_object(ctx.peerEndpoint(site, "ior")), op, arg),
                (site, op, policy, millis) -> call(orb,
                        withTimeout(orb, orb.string_to_object(ctx.peerEndpoint(site, "ior")), policy, millis), op, ""));
        org.omg.CORBA.Object self = root.id_to_reference(root.activate_object(new Servant(orb, scenes)));
        ctx.publish("ior", orb.object_to_string(self));
        scenes.registerSteps(ctx);
        ctx.step("policyCurrent", args -> policyCurrent(orb));
    }

    /** What {@code resolve_initial_references("PolicyCurrent")} gives: a class name or an exception's. */
    static String policyCurrent(ORB orb) {
        try {
            org.omg.CORBA.Object current = orb.resolve_initial_references("PolicyCurrent");
            return "resolved: " + (current == null ? "null" : current.getClass().getName());
        } catch (Exception e) {
            return "failed: " + TimeoutScenes.describe(e);
        }
    }

    /**
     * {@code target} with a timeout policy override: {@code roundtrip} is {@code RelativeRoundtripTimeoutPolicy} of
     * {@code millis}, {@code replyEnd} is {@code ReplyEndTimePolicy} at now + {@code millis}.
     */
    private static org.omg.CORBA.Object withTimeout(ORB orb, org.omg.CORBA.Object target, String policy, long millis) {
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

    /** {@code target.call(op, arg)} by DII; a system exception is thrown as it is. */
    private static String call(ORB orb, org.omg.CORBA.Object target, String op, String arg) {
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

    private static final class Servant extends DynamicImplementation {
        private final ORB orb;
        private final Scenes scenes;

        Servant(ORB orb, Scenes scenes) {
            this.orb = orb;
            this.scenes = scenes;
        }

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
                result = scenes.serve(op.extract_string(), arg.extract_string());
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
            return new String[] {"IDL:example/callbacks/edges/Scenes:1.0"};
        }
    }
}
