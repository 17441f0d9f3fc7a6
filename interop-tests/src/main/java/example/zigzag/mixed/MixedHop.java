package example.zigzag.mixed;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** A site of a mixed-protocol route, reachable over JRMP. */
public interface MixedHop extends Remote {
    String forward(String route, int index, String trail) throws RemoteException;
}
