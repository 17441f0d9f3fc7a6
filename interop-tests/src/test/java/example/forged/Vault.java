package example.forged;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** An object whose monitor a site's own thread holds while it is in an outgoing call. */
public interface Vault extends Remote {
    /** Enters the vault's monitor (a synchronized method) and records who did. */
    void touch(String who) throws RemoteException;

    /** Sleeps {@code millis}: the call the holder makes while holding the vault's monitor. */
    void sleep(long millis) throws RemoteException;
}
