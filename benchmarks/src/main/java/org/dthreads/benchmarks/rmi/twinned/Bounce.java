package org.dthreads.benchmarks.rmi.twinned;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** {@code CallbackLatency}'s remote interface; in the agent's scope, so it gets twins. */
public interface Bounce extends Remote {

    /** Returns at once if {@code depth == 0}, else calls {@code back.bounce(this, depth - 1)} first (a callback). */
    int bounce(Bounce back, int depth) throws RemoteException;
}
