package example.vthreads;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** The remote side of the virtual-thread scenarios ({@link VirtualSite}). */
public interface VirtualHop extends Remote {

    /**
     * Works {@code millis} on this site, then, if {@code back} is not null, calls {@code back.reenter(lock, token)}.
     *
     * @return what the callback reported, or {@code "served"} without one
     */
    String call(VirtualHop back, int lock, String token, long millis) throws RemoteException;

    /**
     * A callback: locks lock {@code lock} of this site ({@code -1}: the site's node, {@code -2}: its
     * {@code Vector}, native mode; else shared lock {@code lock}) and reports the thread that runs it:
     * {@code virtual|platform}, {@code seen|fresh} (whether the caller's {@code ThreadLocal} holds {@code token}),
     * {@code same|other} (whether it is the {@code Thread} object that made the call for {@code token}).
     */
    String reenter(int lock, String token) throws RemoteException;

    /**
     * Waits on this site's wait lock (an emulated {@code wait()}) for at most {@code millis}.
     *
     * @return {@code interrupted} or {@code timed out}
     */
    String waitHere(long millis) throws RemoteException;

    /** Whether a thread is in an emulated wait on this site now (its monitor dump lists a waiter). */
    boolean waiting() throws RemoteException;
}
