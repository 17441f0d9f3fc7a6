package example.interrupts;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** Site A's callback object: B calls it back while A's thread T is blocked in its call to B. */
public interface Probe extends Remote {
    String probe() throws RemoteException;
}
