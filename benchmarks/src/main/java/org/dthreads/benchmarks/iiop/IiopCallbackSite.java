package org.dthreads.benchmarks.iiop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.dthreads.benchmarks.rmi.CallbackPairs;
import org.dthreads.benchmarks.rmi.CallbackRuns;
import org.dthreads.iiop.DThreadsOrbInitializer;
import org.dthreads.iiop.internal.MonitorRequestHook;
import org.omg.CORBA.ORB;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.InvokeHandler;
import org.omg.CORBA.portable.ObjectImpl;
import org.omg.CORBA.portable.OutputStream;
import org.omg.CORBA.portable.ResponseHandler;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;
import org.omg.PortableServer.Servant;

/**
 * One JVM of {@link IiopCallbackLatency}: a JacORB ORB (argument {@code glassfish}: a GlassFish ORB) on loopback
 * with the dthreads ORB initializer (with the agent: the fast path), serving {@code interface Bounce { long bounce(in long depth); }} as a hand-written
 * servant (no IDL compiler): depth 0 returns at once, depth {@code d > 0} calls the peer's {@code bounce(d - 1)}
 * first (the peer is the caller: a callback). Speaks {@link CallbackPairs}' line protocol with its IOR as the
 * endpoint; {@code run} calls on the reading thread through the portable stub API. For a manual check of the
 * mode, {@code served} prints {@code SERVED <name>} of the thread that ran the last {@code bounce} here (after a
 * depth-1 run: {@code main} in original mode, a JacORB request processor or GlassFish worker in take-over mode).
 */
public final class IiopCallbackSite extends Servant implements InvokeHandler {

    private static final String ID = "IDL:dthreads/bench/Bounce:1.0";

    private volatile ObjectImpl peer;
    private volatile Thread lastServer; // for the check command {@code served}
    private final CallbackRuns runs = new CallbackRuns();
    private int sink;

    @Override
    public String[] _all_interfaces(POA poa, byte[] objectId) {
        return new String[] {ID};
    }

    @Override
    public OutputStream _invoke(String method, InputStream input, ResponseHandler handler) {
        if (MonitorRequestHook.OPERATION.equals(method)) {
            // What the agent's ServantInvokePatch puts at the top of an application skeleton's _invoke, by hand: the
            // patch skips every class under org/dthreads/ (dthreads' own), whatever -Ddthreads.include says, so this
            // servant answered the remote monitor requests and site hellos with BAD_OPERATION
            Object reply = MonitorRequestHook.serve(this, input, handler);
            if (reply != null) {
                return (OutputStream) reply;
            }
        }
        if (!"bounce".equals(method)) {
            throw new org.omg.CORBA.BAD_OPERATION(method);
        }
        int depth = input.read_long();
        lastServer = Thread.currentThread();
        runs.served();
        int result = depth == 0 ? ++sink : bounce(peer, depth - 1) + 1;
        OutputStream out = handler.createReply();
        out.write_long(result);
        return out;
    }

    /** One two-way {@code bounce(depth)} through the portable stub API. */
    private static int bounce(ObjectImpl target, int depth) {
        InputStream in = null;
        try {
            OutputStream out = target._request("bounce", true);
            out.write_long(depth);
            in = target._invoke(out);
            return in.read_long();
        } catch (org.omg.CORBA.portable.ApplicationException | org.omg.CORBA.portable.RemarshalException e) {
            throw new IllegalStateException(e);
        } finally {
            target._releaseReply(in);
        }
    }

    /** A JacORB or GlassFish ORB on loopback, port 0, with the dthreads ORB initializer; warns if not on the fast path. */
    private static ORB orb(boolean glassfish) {
        Properties p = new Properties();
        if (glassfish) {
            p.setProperty("org.omg.CORBA.ORBClass", "com.sun.corba.ee.impl.orb.ORBImpl");
            p.setProperty("org.omg.CORBA.ORBSingletonClass", "com.sun.corba.ee.impl.orb.ORBSingleton");
            p.setProperty("com.sun.corba.ee.ORBServerHost", "127.0.0.1");
            p.setProperty("com.sun.corba.ee.ORBServerPort", "0");
        } else {
            p.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
            p.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
            p.setProperty("OAIAddr", "127.0.0.1");
            p.setProperty("OAPort", "0");
            p.setProperty("jacorb.log.default.verbosity", "0");
        }
        p.setProperty("org.omg.PortableInterceptor.ORBInitializerClass." + DThreadsOrbInitializer.class.getName(), "");
        ORB orb = ORB.init(new String[0], p);
        boolean portable = glassfish
                ? !((com.sun.corba.ee.spi.orb.ORB) orb).getRequestDispatcherRegistry().getClientRequestDispatcher(2)
                        .getClass().getName().startsWith("org.dthreads.")
                : ((org.jacorb.orb.ORB) orb).hasClientRequestInterceptors();
        if (portable) {
            System.err.println("IiopCallbackSite: dthreads on the Portable Interceptor path (no agent?): callbacks"
                    + " run in take-over mode in both pairs");
        }
        return orb;
    }

    public static void main(String[] args) throws Exception {
        ORB orb = orb(args.length > 0 && args[0].equals("glassfish"));
        POA root = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
        root.the_POAManager().activate();
        IiopCallbackSite site = new IiopCallbackSite();
        System.out.println("READY " + orb.object_to_string(root.servant_to_reference(site)));
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] words = line.trim().split(" ");
            if (words[0].equals("peer")) {
                site.peer = (ObjectImpl) orb.string_to_object(words[1]);
                System.out.println("OK");
            } else if (words[0].equals("run")) {
                int depth = Integer.parseInt(words[1]);
                ObjectImpl target = site.peer;
                System.out.println(site.runs.run(() -> bounce(target, depth), Integer.parseInt(words[2])));
            } else if (words[0].equals("where")) {
                System.out.println(site.runs.where());
            } else if (words[0].equals("served")) {
                Thread last = site.lastServer;
                System.out.println("SERVED " + (last == null ? "none" : last.getName()));
            }
            System.out.flush();
        }
        System.exit(0);
    }
}
