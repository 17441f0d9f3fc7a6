package org.dthreads.benchmarks.iiop;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** The empty call and a call with a 1 KB argument, as an RMI-IIOP interface (GlassFish ORB, dynamic stubs). */
public interface Ping extends Remote {
    void ping() throws RemoteException;

    void take(byte[] data) throws RemoteException;
}
