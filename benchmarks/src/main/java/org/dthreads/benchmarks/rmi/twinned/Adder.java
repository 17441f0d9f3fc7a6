package org.dthreads.benchmarks.rmi.twinned;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** A remote interface in the agent's scope (it gets twins), called locally by {@code LocalCall*}. */
public interface Adder extends Remote {
    int add(int a, int b) throws RemoteException;
}
