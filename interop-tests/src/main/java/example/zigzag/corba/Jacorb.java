package example.zigzag.corba;

import java.util.Properties;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ARG_IN;
import org.omg.CORBA.Any;
import org.omg.CORBA.NVList;
import org.omg.CORBA.ORB;
import org.omg.CORBA.Request;
import org.omg.CORBA.ServerRequest;
import org.omg.CORBA.TCKind;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;

/**
 * What the zigzag sites share on JacORB: the ORB set-up, and the {@code forward(route, index,
 * trail)} operation called by DII and served by DSI, so no IDL compiler is needed.
 */
public final class Jacorb {
    private Jacorb() {}

    /** A JacORB ORB on the site's address, port 0, its root POA active; {@code dthreads} registers the interceptor. */
    public static ORB orb(SiteContext ctx, boolean dthreads) throws Exception {
        Properties props = new Properties();
        props.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        props.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        props.setProperty("OAIAddr", ctx.host());
        props.setProperty("OAPort", "0");
        props.setProperty("jacorb.log.default.verbosity", "1");
        if (dthreads) {
            props.setProperty("org.omg.PortableInterceptor.ORBInitializerClass.org.dthreads.iiop.DThreadsOrbInitializer", "");
        }
        ORB orb = ORB.init(new String[0], props);
        rootPoa(orb).the_POAManager().activate();
        return orb;
    }

    public static POA rootPoa(ORB orb) throws Exception {
        return POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
    }

    /** Calls {@code forward(route, index, trail)} on the object {@code ior} names. */
    public static String forward(ORB orb, String ior, String route, int index, String trail) {
        Request request = orb.string_to_object(ior)._request("forward");
        request.add_in_arg().insert_string(route);
        request.add_in_arg().insert_long(index);
        request.add_in_arg().insert_string(trail);
        request.set_return_type(orb.get_primitive_tc(TCKind.tk_string));
        request.invoke();
        if (request.env().exception() != null) {
            throw new IllegalStateException("CORBA hop " + index + " failed", request.env().exception());
        }
        return request.return_value().extract_string();
    }

    /** The arguments of a served {@code forward} request. */
    public record ForwardArgs(String route, int index, String trail) {}

    /** Reads the arguments of a {@code forward} request served by DSI. */
    public static ForwardArgs forwardArgs(ORB orb, ServerRequest request) {
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
        return new ForwardArgs(route.extract_string(), index.extract_long(), trail.extract_string());
    }

    /** Sets a string result. */
    public static void reply(ORB orb, ServerRequest request, String result) {
        Any any = orb.create_any();
        any.insert_string(result);
        request.set_result(any);
    }
}
