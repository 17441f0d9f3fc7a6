package example.interrupts;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** Site B's object: passes the call on to C, so the chain's current hop is two sites away from A. */
public interface Relay extends Remote {
    String relay() throws RemoteException;
}
