package example.deadlock.rmi;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** A site's lock, reached over JRMP: each method synchronizes on the site's own monitor. */
public interface Locker extends Remote {
    /** Enters this site's monitor (blocks while another class holds it) and returns the site's name. */
    String lockYours() throws RemoteException;

    /**
     * Holds this site's monitor and calls {@code back} with one hop less; the last hop pauses until the site's
     * {@code release} step: a zigzag held mid-chain.
     */
    String bounce(Locker back, int hops) throws RemoteException;
}
