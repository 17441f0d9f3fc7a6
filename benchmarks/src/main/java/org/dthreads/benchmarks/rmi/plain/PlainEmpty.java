package org.dthreads.benchmarks.rmi.plain;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** The same methods outside the agent's scope: the plain-RMI anchor. */
public interface PlainEmpty extends Remote {
    void m0() throws RemoteException;

    void m1(String a) throws RemoteException;

    void m2(String a, String b) throws RemoteException;
}
