package example.rmiiiop;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** One remote interface, served over RMI-IIOP and JRMP by the same object. */
public interface Hop extends Remote {
    String forward(String route, int index, String trail) throws RemoteException;
}
