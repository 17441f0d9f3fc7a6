package example.callbacks.iiop;

import example.rmiiiop.GlassFishSiteOrb;
import example.zigzag.corba.Jacorb;
import java.util.Arrays;
import java.util.UUID;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ARG_IN;
import org.omg.CORBA.Any;
import org.omg.CORBA.NVList;
import org.omg.CORBA.ORB;
import org.omg.CORBA.Request;
import org.omg.CORBA.ServerRequest;
import org.omg.CORBA.TCKind;
import org.omg.PortableServer.Current;
import org.omg.PortableServer.CurrentHelper;
import org.omg.PortableServer.DynamicImplementation;
import org.omg.PortableServer.POA;

/**
 * The relay of the callbacks-on-the-original-thread tests over CORBA, on JacORB (argument {@code glassfish}: on the
 * GlassFish ORB), with the dthreads ORB initializer (argument {@code dthreads}: without it, the plain ORB): a DSI
 * servant whose {@code hop(route, index, token, mode)}
 * forwards by DII to the next IOR of the route ({@link RelayVisits} for the trail and the modes). Step
 * {@code route A,B,A mode} starts a route from the step's thread.
 */
public final class CorbaRelaySite implements SiteApp {

    @Override
    public void start(SiteContext ctx) throws Exception {
        ORB orb = ctx.args().contains("glassfish") ? glassFishOrb(ctx) : Jacorb.orb(ctx, ctx.args().contains("dthreads"));
        POA root = Jacorb.rootPoa(orb);
        Node node = new Node(ctx.siteName(), orb);
        node.oid = root.activate_object(node);
        node.self = root.id_to_reference(node.oid);
        ctx.publish("ior", orb.object_to_string(node.self));
        ctx.step("route", args -> {
            StringBuilder iors = new StringBuilder();
            for (String site : args.get(0).split(",")) {
                iors.append(site.equals(ctx.siteName()) ? orb.object_to_string(node.self) : ctx.peerEndpoint(site, "ior"))
                        .append(' ');
            }
            try {
                return node.hop(iors.toString().trim(), 0, UUID.randomUUID().toString(), args.get(1), false);
            } catch (RuntimeException e) {
                return "failed: " + e + (e.getCause() == null ? "" : ", caused by " + e.getCause());
            }
        });
        ctx.step("journal", args -> node.visits.journal());
    }

    private static ORB glassFishOrb(SiteContext ctx) throws Exception {
        java.util.Properties props = GlassFishSiteOrb.properties(ctx, ctx.args().contains("dthreads"));
        ORB orb = ORB.init(new String[0], props);
        Jacorb.rootPoa(orb).the_POAManager().activate();
        return orb;
    }

    static final class Node extends DynamicImplementation {
        private final ORB orb;
        private final RelayVisits visits;
        byte[] oid;
        org.omg.CORBA.Object self;

        Node(String name, ORB orb) {
            this.orb = orb;
            this.visits = new RelayVisits(name);
        }

        String hop(String route, int index, String token, String mode, boolean served) throws Exception {
            String[] iors = route.split(" ");
            RelayVisits.Step next = index == iors.length - 1 ? null : () -> call(iors[index + 1], route, index + 1, token, mode);
            return visits.visit(token, mode, index, next, served ? this::poaCheck : null);
        }

        /**
         * What POA Current and {@code _this_object()} say about the request this thread serves (no
         * {@code get_servant()}: the GlassFish ORB predates it).
         */
        private String poaCheck() {
            try {
                Current current = CurrentHelper.narrow(orb.resolve_initial_references("POACurrent"));
                if (!current.get_POA().the_name().equals("RootPOA")) {
                    return "poa: another POA";
                }
                if (!Arrays.equals(current.get_object_id(), oid)) {
                    return "poa: another object id";
                }
                return _this_object()._is_equivalent(self) ? "poa" : "poa: _this_object() is another object";
            } catch (Exception e) {
                return "poa: " + e.getClass().getSimpleName();
            }
        }

        private String call(String ior, String route, int index, String token, String mode) {
            Request request = orb.string_to_object(ior)._request("hop");
            request.add_in_arg().insert_string(route);
            request.add_in_arg().insert_long(index);
            request.add_in_arg().insert_string(token);
            request.add_in_arg().insert_string(mode);
            request.set_return_type(orb.get_primitive_tc(TCKind.tk_string));
            request.invoke();
            if (request.env().exception() != null) {
                throw new IllegalStateException("hop " + index + " failed", request.env().exception());
            }
            return request.return_value().extract_string();
        }

        @Override
        public void invoke(ServerRequest request) {
            if (!request.operation().equals("hop")) {
                throw new org.omg.CORBA.BAD_OPERATION(request.operation());
            }
            NVList args = orb.create_list(4);
            Any[] values = new Any[4];
            TCKind[] kinds = {TCKind.tk_string, TCKind.tk_long, TCKind.tk_string, TCKind.tk_string};
            for (int i = 0; i < 4; i++) {
                values[i] = orb.create_any();
                values[i].type(orb.get_primitive_tc(kinds[i]));
                args.add_value("a" + i, values[i], ARG_IN.value);
            }
            request.arguments(args);
            String result;
            try {
                result = hop(values[0].extract_string(), values[1].extract_long(), values[2].extract_string(),
                        values[3].extract_string(), true);
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
            return new String[] {"IDL:example/callbacks/Relay:1.0"};
        }
    }
}
