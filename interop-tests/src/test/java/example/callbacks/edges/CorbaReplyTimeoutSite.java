package example.callbacks.edges;

import example.zigzag.corba.Jacorb;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ARG_IN;
import org.omg.CORBA.Any;
import org.omg.CORBA.NVList;
import org.omg.CORBA.ORB;
import org.omg.CORBA.Request;
import org.omg.CORBA.ServerRequest;
import org.omg.CORBA.TCKind;
import org.omg.PortableServer.DynamicImplementation;
import org.omg.PortableServer.POA;

/**
 * The {@link TimeoutScenes} on JacORB with the dthreads ORB initializer: a DSI servant whose one operation
 * {@code call(op, arg)} is called by DII through plain references, so the only client timeout is what the JVM's
 * JacORB properties set ({@code -Djacorb.connection.client.pending_reply_timeout=<ms>}; JacORB reads system
 * properties). Publishes its IOR as {@code ior}. Step {@code policyCurrent}: what
 * {@code resolve_initial_references("PolicyCurrent")} gives.
 */
public final class CorbaReplyTimeoutSite implements SiteApp {

    @Override
    public void start(SiteContext ctx) throws Exception {
        ORB orb = Jacorb.orb(ctx, true);
        POA root = Jacorb.rootPoa(orb);
        TimeoutScenes scenes = new TimeoutScenes((site, op, arg) -> call(orb, ctx.peerEndpoint(site, "ior"), op, arg));
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

    private static String call(ORB orb, String ior, String op, String arg) {
        Request request = orb.string_to_object(ior)._request("call");
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
        private final TimeoutScenes scenes;

        Servant(ORB orb, TimeoutScenes scenes) {
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
            return new String[] {"IDL:example/callbacks/edges/ReplyTimeouts:1.0"};
        }
    }
}
