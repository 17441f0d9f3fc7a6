package example.monitors.corba;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** The counter as an RMI-IIOP remote interface (GlassFish ORB, dynamic stubs and ties). */
public interface RmiCounter extends Remote {
    int get() throws RemoteException;

    void set(int v) throws RemoteException;
}
