package example.callbacks.edges;

import example.rmiiiop.GlassFishSiteOrb;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.Properties;
import java.util.function.Function;
import javax.rmi.PortableRemoteObject;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ORB;

/**
 * {@link Scenes} over RMI-IIOP on the GlassFish ORB (dynamic stubs) with the dthreads ORB initializer: the one
 * operation {@link IiopEdges#call}. The JVM's {@code -Dcom.sun.corba.ee.transport.*} properties (the ORB's reply
 * timeout {@code ORBWaitForResponseTimeout}, {@code ORBTCPConnectTimeouts}) are copied into the ORB's properties.
 * Publishes its IOR as {@code ior}. Step {@code policyCurrent}: what
 * {@code resolve_initial_references("PolicyCurrent")} gives. One subclass a set of scenes: {@link Edges},
 * {@link ReplyTimeouts}.
 */
public abstract class GlassFishScenesSite implements SiteApp {

    /** {@link EdgeScenes} ({@code IiopOriginalThreadEdgesTest}). */
    public static final class Edges extends GlassFishScenesSite {
        public Edges() {
            super(EdgeScenes::new);
        }
    }

    /** {@link TimeoutScenes} ({@code IiopOriginalReplyTimeoutTest}). */
    public static final class ReplyTimeouts extends GlassFishScenesSite {
        public ReplyTimeouts() {
            super(TimeoutScenes::new);
        }
    }

    static final String TRANSPORT = "com.sun.corba.ee.transport.";

    private final Function<Scenes.Peers, Scenes> factory;

    private GlassFishScenesSite(Function<Scenes.Peers, Scenes> factory) {
        this.factory = factory;
    }

    @Override
    public final void start(SiteContext ctx) throws Exception {
        Properties props = GlassFishSiteOrb.properties(ctx, true);
        for (String key : System.getProperties().stringPropertyNames()) { // the ORB's transport timeouts
            if (key.startsWith(TRANSPORT)) {
                props.setProperty(key, System.getProperty(key));
            }
        }
        ORB orb = GlassFishSiteOrb.startRmiIiop(props);
        Scenes scenes = factory.apply((site, op, arg) -> {
            IiopEdges peer = (IiopEdges) PortableRemoteObject.narrow(
                    orb.string_to_object(ctx.peerEndpoint(site, "ior")), IiopEdges.class);
            GlassFishSiteOrb.connect(peer, orb);
            return peer.call(op, arg);
        });
        Node node = new Node(scenes);
        PortableRemoteObject.exportObject(node);
        Remote stub = PortableRemoteObject.toStub(node);
        GlassFishSiteOrb.connect(stub, orb);
        ctx.publish("ior", orb.object_to_string((org.omg.CORBA.Object) stub));
        scenes.registerSteps(ctx);
        ctx.step("policyCurrent", args -> JacorbScenesSite.policyCurrent(orb));
    }

    static final class Node implements IiopEdges {
        private final Scenes scenes;

        Node(Scenes scenes) {
            this.scenes = scenes;
        }

        @Override
        public String call(String op, String arg) throws RemoteException {
            try {
                return scenes.serve(op, arg);
            } catch (RemoteException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new RemoteException(op, e);
            }
        }
    }
}
