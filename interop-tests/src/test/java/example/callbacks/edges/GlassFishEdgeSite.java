package example.callbacks.edges;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.Properties;
import javax.rmi.CORBA.Stub;
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
        System.setProperty("javax.rmi.CORBA.UtilClass", "com.sun.corba.ee.impl.javax.rmi.CORBA.Util");
        System.setProperty("javax.rmi.CORBA.PortableRemoteObjectClass", "com.sun.corba.ee.impl.javax.rmi.PortableRemoteObject");
        System.setProperty("javax.rmi.CORBA.StubClass", "com.sun.corba.ee.impl.javax.rmi.CORBA.StubDelegateImpl");
        Properties props = new Properties();
        props.setProperty("org.omg.CORBA.ORBClass", "com.sun.corba.ee.impl.orb.ORBImpl");
        props.setProperty("org.omg.CORBA.ORBSingletonClass", "com.sun.corba.ee.impl.orb.ORBSingleton");
        props.setProperty("com.sun.corba.ee.ORBServerHost", ctx.host());
        props.setProperty("com.sun.corba.ee.ORBServerPort", "0");
        props.setProperty("org.omg.PortableInterceptor.ORBInitializerClass.org.dthreads.iiop.DThreadsOrbInitializer", "");
        ORB orb = ORB.init(new String[0], props);
        org.omg.PortableServer.POAHelper.narrow(orb.resolve_initial_references("RootPOA")).the_POAManager().activate();
        EdgeScenes scenes = new EdgeScenes((site, op, arg) -> {
            IiopEdges peer = (IiopEdges) PortableRemoteObject.narrow(orb.string_to_object(ctx.peerEndpoint(site, "ior")),
                    IiopEdges.class);
            connect(peer, orb);
            return peer.call(op, arg);
        });
        Node node = new Node(scenes);
        PortableRemoteObject.exportObject(node);
        Remote stub = PortableRemoteObject.toStub(node);
        connect(stub, orb);
        ctx.publish("ior", orb.object_to_string((org.omg.CORBA.Object) stub));
        scenes.registerSteps(ctx);
    }

    private static void connect(Remote stub, ORB orb) {
        if (stub instanceof Stub s) {
            try {
                s.connect(orb);
            } catch (RemoteException alreadyConnected) {
                // fine
            }
        }
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
