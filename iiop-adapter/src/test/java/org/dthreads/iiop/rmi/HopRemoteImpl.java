package org.dthreads.iiop.rmi;

import java.rmi.RemoteException;
import org.dthreads.iiop.internal.ServerIdentityInterceptor;
import org.dthreads.internal.KernelLink;

/** The RMI-IIOP test servant. */
public class HopRemoteImpl implements HopRemote {

    @Override
    public long seen() {
        return KernelLink.currentClass();
    }

    @Override
    public long chainSame(HopRemote next, HopRemote self, int depth) throws RemoteException {
        long mine = KernelLink.currentClass();
        if (depth <= 0) {
            return mine;
        }
        long deeper = next.chainSame(self, next, depth - 1);
        return deeper == mine && KernelLink.currentClass() == mine ? mine : 0L;
    }

    @Override
    public long threadDepth() {
        return ServerIdentityInterceptor.threadState()[0];
    }

    @Override
    public long threadPrevious() {
        return ServerIdentityInterceptor.threadState()[1];
    }
}
