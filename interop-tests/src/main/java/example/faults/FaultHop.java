package example.faults;

import java.rmi.Remote;
import java.rmi.RemoteException;

/**
 * A hop of a fault scenario over JRMP: {@code route} is a comma-separated list of site names
 * (a {@code *} after a name holds the chain at that site's gate); {@code chain} names the lock the
 * hop holds while it calls on: empty for the site's one node monitor, otherwise a lock per chain.
 */
public interface FaultHop extends Remote {
    String forward(String route, int index, String trail, String chain) throws RemoteException;
}
