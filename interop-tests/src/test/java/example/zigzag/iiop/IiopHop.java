package example.zigzag.iiop;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** A hop reachable over RMI-IIOP (GlassFish ORB) or JRMP. */
public interface IiopHop extends Remote {
    String forward(String route, int index, String trail) throws RemoteException;
}
