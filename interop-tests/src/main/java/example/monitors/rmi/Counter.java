package example.monitors.rmi;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** A shared counter whose clients make read-modify-write atomic with {@code synchronized (counterStub)}. */
public interface Counter extends Remote {
    int get() throws RemoteException;

    void set(int value) throws RemoteException;

    /** Whether {@link CounterSites.Server}'s own thread has signalled; waiters loop on it. */
    boolean signalled() throws RemoteException;
}
