package example.waitnotify;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** Site B: calls back the peer it is given. */
public interface Relay extends Remote {
    String relay(Peer peer) throws RemoteException;
}
