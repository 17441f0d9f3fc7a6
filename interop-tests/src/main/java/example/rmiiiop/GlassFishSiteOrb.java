package example.rmiiiop;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.Properties;
import javax.rmi.CORBA.Stub;
import org.dthreads.junit.SiteContext;
import org.omg.CORBA.ORB;

/**
 * The GlassFish ORB as the RMI-IIOP and CORBA test sites start it: GlassFish's ORB classes, the site's host and a
 * free port, the dthreads ORB initializer when asked for; for RMI-IIOP also GlassFish's {@code javax.rmi.CORBA}
 * delegates (dynamic stubs) and an active root POA (it starts HOLDING: requests would queue for ever).
 */
public final class GlassFishSiteOrb {

    private GlassFishSiteOrb() {}

    /** The ORB's properties; {@code dthreads}: with the dthreads ORB initializer. */
    public static Properties properties(SiteContext ctx, boolean dthreads) {
        Properties props = new Properties();
        props.setProperty("org.omg.CORBA.ORBClass", "com.sun.corba.ee.impl.orb.ORBImpl");
        props.setProperty("org.omg.CORBA.ORBSingletonClass", "com.sun.corba.ee.impl.orb.ORBSingleton");
        props.setProperty("com.sun.corba.ee.ORBServerHost", ctx.host());
        props.setProperty("com.sun.corba.ee.ORBServerPort", "0");
        if (dthreads) {
            props.setProperty("org.omg.PortableInterceptor.ORBInitializerClass.org.dthreads.iiop.DThreadsOrbInitializer", "");
        }
        return props;
    }

    /** An RMI-IIOP ORB with {@link #properties}, its root POA active. */
    public static ORB startRmiIiop(SiteContext ctx, boolean dthreads) throws Exception {
        return startRmiIiop(properties(ctx, dthreads));
    }

    /** An RMI-IIOP ORB with {@code props} (from {@link #properties}, with more), its root POA active. */
    public static ORB startRmiIiop(Properties props) throws Exception {
        System.setProperty("javax.rmi.CORBA.UtilClass", "com.sun.corba.ee.impl.javax.rmi.CORBA.Util");
        System.setProperty("javax.rmi.CORBA.PortableRemoteObjectClass", "com.sun.corba.ee.impl.javax.rmi.PortableRemoteObject");
        System.setProperty("javax.rmi.CORBA.StubClass", "com.sun.corba.ee.impl.javax.rmi.CORBA.StubDelegateImpl");
        ORB orb = ORB.init(new String[0], props);
        org.omg.PortableServer.POAHelper.narrow(orb.resolve_initial_references("RootPOA")).the_POAManager().activate();
        return orb;
    }

    /** Connects a dynamic stub to {@code orb}; one already connected stays as it is. */
    public static void connect(Remote stub, ORB orb) {
        if (stub instanceof Stub s) {
            try {
                s.connect(orb);
            } catch (RemoteException alreadyConnected) {
                // fine
            }
        }
    }
}
