package example.callbacks.edges;

import example.rmiiiop.GlassFishSiteOrb;
import java.rmi.Remote;
import java.rmi.RemoteException;
import javax.rmi.PortableRemoteObject;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ORB;

/**
 * The {@link EdgeScenes} over RMI-IIOP on the GlassFish ORB (dynamic stubs) with the dthreads ORB initializer:
 * {@link IiopEdges#call}. Publishes its IOR as {@code ior}.
 */
public final class GlassFishEdgeSite implements SiteApp {

    @Override
    public void start(SiteContext ctx) throws Exception {
        ORB orb = GlassFishSiteOrb.startRmiIiop(ctx, true);
        EdgeScenes scenes = new EdgeScenes((site, op, arg) -> {
            IiopEdges peer = (IiopEdges) PortableRemoteObject.narrow(orb.string_to_object(ctx.peerEndpoint(site, "ior")),
                    IiopEdges.class);
            GlassFishSiteOrb.connect(peer, orb);
            return peer.call(op, arg);
        });
        Node node = new Node(scenes);
        PortableRemoteObject.exportObject(node);
        Remote stub = PortableRemoteObject.toStub(node);
        GlassFishSiteOrb.connect(stub, orb);
        ctx.publish("ior", orb.object_to_string((org.omg.CORBA.Object) stub));
        scenes.registerSteps(ctx);
    }

    static final class Node implements IiopEdges {
        private final EdgeScenes scenes;

        Node(EdgeScenes scenes) {
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
