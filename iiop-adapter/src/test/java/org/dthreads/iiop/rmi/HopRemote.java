package org.dthreads.iiop.rmi;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** RMI-IIOP twin of the IDL {@code Hop}: {@code seen} and {@code chainSame} are wire-identical. */
public interface HopRemote extends Remote {

    String REPOSITORY_ID = "RMI:org.dthreads.iiop.rmi.HopRemote:0000000000000000";

    long seen() throws RemoteException;

    long chainSame(HopRemote next, HopRemote self, int depth) throws RemoteException;

    /** [adapter bindings on the serving thread, class bound before the adapter's, bound class now]. */
    long threadDepth() throws RemoteException;

    long threadPrevious() throws RemoteException;
}
