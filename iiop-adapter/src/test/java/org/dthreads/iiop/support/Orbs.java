package org.dthreads.iiop.support;

import java.util.Properties;
import org.dthreads.iiop.DThreadsOrbInitializer;
import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;

/** ORB set-up for tests: JacORB or the GlassFish ORB on 127.0.0.1, ephemeral port. */
public final class Orbs {

    public static final String INITIALIZER_PROPERTY =
            "org.omg.PortableInterceptor.ORBInitializerClass." + DThreadsOrbInitializer.class.getName();

    public enum Kind { JACORB, GLASSFISH }

    private Orbs() {}

    public static Properties props(Kind kind, boolean dthreads) {
        Properties p = new Properties();
        if (kind == Kind.JACORB) {
            p.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
            p.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
            p.setProperty("OAIAddr", "127.0.0.1");
            p.setProperty("OAPort", "0");
            p.setProperty("jacorb.log.default.verbosity", "1");
        } else {
            p.setProperty("org.omg.CORBA.ORBClass", "com.sun.corba.ee.impl.orb.ORBImpl");
            p.setProperty("org.omg.CORBA.ORBSingletonClass", "com.sun.corba.ee.impl.orb.ORBSingleton");
            p.setProperty("com.sun.corba.ee.ORBServerHost", "127.0.0.1");
            p.setProperty("com.sun.corba.ee.ORBServerPort", "0");
        }
        if (dthreads) {
            p.setProperty(INITIALIZER_PROPERTY, "");
        }
        return p;
    }

    public static ORB init(Kind kind, boolean dthreads) {
        return init(props(kind, dthreads));
    }

    public static ORB init(Properties p) {
        return ORB.init(new String[0], p);
    }

    public static POA rootPoa(ORB orb) {
        try {
            POA poa = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
            poa.the_POAManager().activate();
            return poa;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs the ORB's event loop on a daemon thread (needed by some ORBs to serve requests). */
    public static void runInBackground(ORB orb, String name) {
        Thread t = new Thread(orb::run, name);
        t.setDaemon(true);
        t.start();
    }

    public static void shutdown(ORB orb) {
        if (orb == null) {
            return;
        }
        try {
            orb.shutdown(false);
            orb.destroy();
        } catch (RuntimeException ignored) {
            // best effort in tests
        }
    }
}
