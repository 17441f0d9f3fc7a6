package org.dthreads.iiop.rmi;

import java.rmi.Remote;
import javax.rmi.CORBA.Stub;
import javax.rmi.CORBA.Tie;
import javax.rmi.CORBA.Util;
import javax.rmi.PortableRemoteObject;
import org.omg.CORBA.ORB;

/** RMI-IIOP on the GlassFish ORB with dynamic stubs (no rmic). */
public final class RmiIiop {
    private RmiIiop() {}

    /** Exports {@code impl} on {@code orb}; returns its IOR. */
    public static String export(ORB orb, Remote impl) {
        try {
            PortableRemoteObject.exportObject(impl);
            Tie tie = Util.getTie(impl);
            tie.orb(orb);
            return orb.object_to_string(tie.thisObject());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A stub for {@code ior}, connected to {@code orb}. */
    public static HopRemote hop(ORB orb, String ior) {
        org.omg.CORBA.Object o = orb.string_to_object(ior);
        HopRemote h = (HopRemote) PortableRemoteObject.narrow(o, HopRemote.class);
        if (h instanceof Stub s) {
            try {
                s.connect(orb);
            } catch (java.rmi.RemoteException alreadyConnected) {
                // fine
            }
        }
        return h;
    }

    public static void unexport(Remote impl) {
        try {
            PortableRemoteObject.unexportObject(impl);
        } catch (Exception ignored) {
            // best effort
        }
    }
}
