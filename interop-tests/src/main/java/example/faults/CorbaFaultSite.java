package example.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.iiop.internal.ServerIdentityInterceptor;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ARG_IN;
import org.omg.CORBA.Any;
import org.omg.CORBA.NVList;
import org.omg.CORBA.ORB;
import org.omg.CORBA.Request;
import org.omg.CORBA.ServerRequest;
import org.omg.CORBA.SystemException;
import org.omg.CORBA.TCKind;
import org.omg.PortableServer.DynamicImplementation;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;

/**
 * The CORBA (JacORB) twin of {@link JrmpFaultSite}: a DSI servant whose
 * {@code forward(route, index, trail, chain)} holds a monitor while it calls the next site by DII.
 * The ORB listens on port 0 and publishes its IOR as {@code ior}. Site arguments: {@code dthreads}
 * registers the dthreads interceptor; {@code key=value} arguments are added to the ORB properties
 * (pool sizes, timeouts).
 *
 * <p>Each hop of the trail reads {@code NAME@THREAD#CLASS[b=N]}, N being the adapter bindings open
 * on the serving thread (1 for a request dispatched on its own thread; more would be a binding
 * leaked by an earlier request on that pooled thread). Steps as in {@link JrmpFaultSite}.
 */
public final class CorbaFaultSite implements SiteApp {

    @Override
    public void start(SiteContext ctx) throws Exception {
        Properties props = new Properties();
        props.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        props.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        props.setProperty("OAIAddr", ctx.host());
        props.setProperty("OAPort", "0");
        props.setProperty("jacorb.log.default.verbosity", "1");
        for (String arg : ctx.args()) {
            if (arg.equals("dthreads")) {
                props.setProperty("org.omg.PortableInterceptor.ORBInitializerClass.org.dthreads.iiop.DThreadsOrbInitializer", "");
            } else if (arg.contains("=")) {
                props.setProperty(arg.substring(0, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
            }
        }
        ORB orb = ORB.init(new String[0], props);
        POA root = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
        root.the_POAManager().activate();
        FaultProbe probe = new FaultProbe("example.faults.CorbaFaultSite");
        Node node = new Node(ctx, orb, probe);
        String ior = orb.object_to_string(root.servant_to_reference(node));
        node.selfIor = ior;
        ctx.publish("ior", ior);
        probe.register(ctx);
        ctx.step("route", args -> {
            try {
                return node.forward(args.get(0), 0, "", args.size() > 1 ? args.get(1) : "");
            } catch (Exception e) {
                return "ERR " + FaultProbe.describe(e);
            }
        });
        ctx.step("parallel", args -> {
            int n = Integer.parseInt(args.get(1));
            ExecutorService pool = Executors.newFixedThreadPool(n);
            try {
                List<Future<String>> results = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    String chain = "chain-" + i;
                    results.add(pool.submit(() -> {
                        try {
                            return node.forward(args.get(0), 0, "", chain);
                        } catch (Exception e) {
                            return "ERR " + FaultProbe.describe(e);
                        }
                    }));
                }
                int ok = 0;
                List<String> errors = new ArrayList<>();
                for (Future<String> f : results) {
                    String r = f.get(120, TimeUnit.SECONDS);
                    if (!r.startsWith("ERR ")) {
                        ok++;
                    } else if (!errors.contains(r)) {
                        errors.add(r);
                    }
                }
                return "ok=" + ok + " err=" + (n - ok) + (errors.isEmpty() ? "" : " " + errors);
            } finally {
                pool.shutdownNow();
            }
        });
    }

    static final class Node extends DynamicImplementation {
        private final SiteContext ctx;
        private final ORB orb;
        private final FaultProbe probe;
        private final Map<String, Object> chainLocks = new ConcurrentHashMap<>();
        volatile String selfIor;
        private long work;

        Node(SiteContext ctx, ORB orb, FaultProbe probe) {
            this.ctx = ctx;
            this.orb = orb;
            this.probe = probe;
        }

        String forward(String route, int index, String trail, String chain) throws InterruptedException {
            Object lock = chain.isEmpty() ? this : chainLocks.computeIfAbsent(chain, k -> new Object());
            synchronized (lock) {
                probe.entered();
                try {
                    for (int i = 0; i < 200; i++) {
                        work += Integer.toHexString(i ^ index).hashCode();
                    }
                    String[] hops = route.split(",");
                    String here = trail + ctx.siteName() + "@" + Thread.currentThread().getName() + "#"
                            + ThreadClass.format(DThreads.currentClass()) + "[b=" + bindings() + "]";
                    if (FaultProbe.gated(hops[index])) {
                        probe.stopAtGate();
                    }
                    if (index == hops.length - 1) {
                        return here;
                    }
                    String next = FaultProbe.siteOf(hops[index + 1]);
                    String ior = next.equals(ctx.siteName()) ? selfIor : ctx.peerEndpoint(next, "ior");
                    return call(ior, route, index + 1, here + " > ", chain);
                } finally {
                    probe.left();
                }
            }
        }

        private static long bindings() {
            try {
                return ServerIdentityInterceptor.threadState()[0];
            } catch (Throwable t) {
                return -1;
            }
        }

        private String call(String ior, String route, int index, String trail, String chain) {
            Request request = orb.string_to_object(ior)._request("forward");
            request.add_in_arg().insert_string(route);
            request.add_in_arg().insert_long(index);
            request.add_in_arg().insert_string(trail);
            request.add_in_arg().insert_string(chain);
            request.set_return_type(orb.get_primitive_tc(TCKind.tk_string));
            request.invoke();
            Exception e = request.env().exception();
            if (e instanceof SystemException se) {
                throw se;
            }
            if (e != null) {
                throw new org.omg.CORBA.UNKNOWN("hop " + index + " failed: " + e);
            }
            return request.return_value().extract_string();
        }

        @Override
        public void invoke(ServerRequest request) {
            if (!request.operation().equals("forward")) {
                throw new org.omg.CORBA.BAD_OPERATION(request.operation());
            }
            NVList args = orb.create_list(4);
            Any[] values = new Any[4];
            TCKind[] kinds = {TCKind.tk_string, TCKind.tk_long, TCKind.tk_string, TCKind.tk_string};
            String[] names = {"route", "index", "trail", "chain"};
            for (int i = 0; i < 4; i++) {
                values[i] = orb.create_any();
                values[i].type(orb.get_primitive_tc(kinds[i]));
                args.add_value(names[i], values[i], ARG_IN.value);
            }
            request.arguments(args);
            String result;
            try {
                result = forward(values[0].extract_string(), values[1].extract_long(), values[2].extract_string(),
                        values[3].extract_string());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new org.omg.CORBA.UNKNOWN("interrupted at the gate");
            } catch (SystemException e) {
                throw e;
            } catch (RuntimeException e) {
                throw new org.omg.CORBA.UNKNOWN(FaultProbe.describe(e));
            }
            Any any = orb.create_any();
            any.insert_string(result);
            request.set_result(any);
        }

        @Override
        public String[] _all_interfaces(POA poa, byte[] oid) {
            return new String[] {"IDL:example/faults/FaultHop:1.0"};
        }
    }
}
