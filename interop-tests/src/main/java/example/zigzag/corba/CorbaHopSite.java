package example.zigzag.corba;

import java.util.Properties;
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
import org.omg.PortableServer.POAHelper;

/**
 * The zigzag over CORBA (JacORB, IIOP), as application code: a DSI servant whose {@code forward}
 * holds the servant's monitor while it calls the next site of the route by DII (no IDL compiler
 * needed). Each site's ORB listens on port 0 and publishes its IOR as {@code ior}. Argument
 * {@code dthreads} registers the dthreads interceptor (the whole ORB set-up dthreads needs);
 * without it the site is plain JacORB.
 */
public final class CorbaHopSite implements SiteApp {

    @Override
    public void start(SiteContext ctx) throws Exception {
        Properties props = new Properties();
        props.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        props.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        props.setProperty("OAIAddr", ctx.host());
        props.setProperty("OAPort", "0");
        props.setProperty("jacorb.log.default.verbosity", "1");
        if (ctx.args().contains("dthreads")) {
            props.setProperty("org.omg.PortableInterceptor.ORBInitializerClass.org.dthreads.iiop.DThreadsOrbInitializer", "");
        }
        ORB orb = ORB.init(new String[0], props);
        POA poa = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
        poa.the_POAManager().activate();
        Node node = new Node(ctx.siteName(), orb);
        org.omg.CORBA.Object self = poa.servant_to_reference(node);
        ctx.publish("ior", orb.object_to_string(self));
        ctx.step("route", args -> {
            StringBuilder iors = new StringBuilder();
            for (String site : args.get(0).split(",")) {
                iors.append(site.equals(ctx.siteName()) ? orb.object_to_string(self) : ctx.peerEndpoint(site, "ior"))
                        .append(' ');
            }
            return node.forward(iors.toString().trim(), 0, "");
        });
    }

    /** The servant: {@code forward(string route, long index, string trail)}. */
    static final class Node extends DynamicImplementation {
        private final String name;
        private final ORB orb;
        private int visits;
        private long work;

        Node(String name, ORB orb) {
            this.name = name;
            this.orb = orb;
        }

        synchronized String forward(String route, int index, String trail) {
            visits++;
            for (int i = 0; i < 500; i++) {
                work += Integer.toHexString(i ^ visits).hashCode();
            }
            String here = trail + name + "@" + Thread.currentThread().getName().replaceAll("[^A-Za-z]+.*", "");
            System.out.println("hop " + index + ": site " + name + " (CORBA), thread \"" + Thread.currentThread().getName()
                    + "\", class " + org.dthreads.ThreadClass.format(org.dthreads.DThreads.currentClass())
                    + ", holds the monitor of Node(" + name + ")");
            String[] iors = route.split(" ");
            if (index == iors.length - 1) {
                return here;
            }
            Request next = orb.string_to_object(iors[index + 1])._request("forward");
            next.add_in_arg().insert_string(route);
            next.add_in_arg().insert_long(index + 1);
            next.add_in_arg().insert_string(here + " > ");
            next.set_return_type(orb.get_primitive_tc(TCKind.tk_string));
            next.invoke();
            if (next.env().exception() != null) {
                throw new IllegalStateException("forward to hop " + (index + 1) + " failed", next.env().exception());
            }
            return next.return_value().extract_string();
        }

        @Override
        public void invoke(ServerRequest request) {
            if (!request.operation().equals("forward")) {
                throw new org.omg.CORBA.BAD_OPERATION(request.operation());
            }
            NVList args = orb.create_list(3);
            Any route = orb.create_any();
            route.type(orb.get_primitive_tc(TCKind.tk_string));
            Any index = orb.create_any();
            index.type(orb.get_primitive_tc(TCKind.tk_long));
            Any trail = orb.create_any();
            trail.type(orb.get_primitive_tc(TCKind.tk_string));
            args.add_value("route", route, ARG_IN.value);
            args.add_value("index", index, ARG_IN.value);
            args.add_value("trail", trail, ARG_IN.value);
            request.arguments(args);
            Any result = orb.create_any();
            result.insert_string(forward(route.extract_string(), index.extract_long(), trail.extract_string()));
            request.set_result(result);
        }

        @Override
        public String[] _all_interfaces(POA poa, byte[] oid) {
            return new String[] {"IDL:example/zigzag/Hop:1.0"};
        }
    }
}
