package example.callbacks.iiop;

import example.rmiiiop.GlassFishSiteOrb;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.Properties;
import java.util.UUID;
import javax.rmi.PortableRemoteObject;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ORB;

/**
 * The relay of the callbacks-on-the-original-thread tests over RMI-IIOP on the GlassFish ORB (dynamic stubs), with
 * the dthreads ORB initializer (argument {@code dthreads}): {@link IiopRelay#hop} forwards to the next IOR of the
 * route ({@link RelayVisits} for the trail and the modes). Step {@code route A,B,A mode} starts a route from the
 * step's thread.
 */
public final class GlassFishRelaySite implements SiteApp {

    @Override
    public void start(SiteContext ctx) throws Exception {
        Properties props = GlassFishSiteOrb.properties(ctx, ctx.args().contains("dthreads"));
        String timeout = System.getProperty("relay.responseTimeoutMillis"); // the ORB's reply timeout, for orphan tests
        if (timeout != null) {
            props.setProperty("com.sun.corba.ee.transport.ORBWaitForResponseTimeout", timeout);
        }
        ORB orb = GlassFishSiteOrb.startRmiIiop(props);
        Node node = new Node(ctx.siteName(), orb);
        PortableRemoteObject.exportObject(node);
        Remote stub = PortableRemoteObject.toStub(node);
        GlassFishSiteOrb.connect(stub, orb);
        String ownIor = orb.object_to_string((org.omg.CORBA.Object) stub);
        ctx.publish("ior", ownIor);
        ctx.step("route", args -> {
            StringBuilder iors = new StringBuilder();
            for (String site : args.get(0).split(",")) {
                iors.append(site.equals(ctx.siteName()) ? ownIor : ctx.peerEndpoint(site, "ior")).append(' ');
            }
            try {
                return node.hop(iors.toString().trim(), 0, UUID.randomUUID().toString(), args.get(1));
            } catch (RemoteException | RuntimeException e) {
                return "failed: " + e;
            }
        });
        ctx.step("journal", args -> node.visits.journal());
        ctx.step("helpers", args -> { // the live helper threads of original-mode calls (CallerHelper's names)
            StringBuilder names = new StringBuilder();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().startsWith("dthreads-call-")) {
                    names.append(names.length() == 0 ? "" : ",").append(t.getName());
                }
            }
            return names.toString();
        });
    }

    static final class Node implements IiopRelay {
        private final ORB orb;
        private final RelayVisits visits;

        Node(String name, ORB orb) {
            this.orb = orb;
            this.visits = new RelayVisits(name);
        }

        @Override
        public String hop(String route, int index, String token, String mode) throws RemoteException {
            String[] iors = route.split(" ");
            RelayVisits.Step next = index == iors.length - 1 ? null : () -> {
                IiopRelay relay = (IiopRelay) PortableRemoteObject.narrow(orb.string_to_object(iors[index + 1]), IiopRelay.class);
                GlassFishSiteOrb.connect(relay, orb);
                return relay.hop(route, index + 1, token, mode);
            };
            try {
                return visits.visit(token, mode, index, next, null);
            } catch (RemoteException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new RemoteException("hop " + index, e);
            }
        }
    }
}
