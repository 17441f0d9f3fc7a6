package org.dthreads.benchmarks.rmi.twinned;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** The paper's Table 3 methods; in the agent's scope, so it gets twins. */
public interface Empty extends Remote {
    void m0() throws RemoteException;

    void m1(String a) throws RemoteException;

    void m2(String a, String b) throws RemoteException;
}
