package example.interrupts;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** Site B's object: calls the caller's {@link Probe} back, so T's class runs on A again (A -> B -> A). */
public interface Bouncer extends Remote {
    String bounce(Probe back) throws RemoteException;
}
