package example.interrupts;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** Site C's object: a wait that only an interrupt ends early. */
public interface Waiter extends Remote {
    /** Waits up to 30 s on a local monitor; reports how the wait ended. */
    String waitHere() throws RemoteException;
}
