package org.dthreads.iiop.support;

import org.dthreads.iiop.internal.ServerIdentityInterceptor;
import org.dthreads.iiop.testidl.Hop;
import org.dthreads.iiop.testidl.HopPOA;
import org.dthreads.internal.KernelLink;

/** The test servant: reports the class it runs under at each hop. */
public class HopServant extends HopPOA {

    private volatile long lastOneway;

    @Override
    public long seen() {
        return KernelLink.currentClass();
    }

    @Override
    public long[] chain(Hop next, Hop self, int depth) {
        long mine = KernelLink.currentClass();
        if (depth <= 0) {
            return new long[] {mine};
        }
        long[] rest = next.chain(self, next, depth - 1);
        long[] all = new long[rest.length + 1];
        all[0] = mine;
        System.arraycopy(rest, 0, all, 1, rest.length);
        if (KernelLink.currentClass() != mine) {
            all[0] = -1; // the binding changed under the servant during the nested call
        }
        return all;
    }

    @Override
    public long chainSame(Hop next, Hop self, int depth) {
        long mine = KernelLink.currentClass();
        if (depth <= 0) {
            return mine;
        }
        long deeper = next.chainSame(self, next, depth - 1);
        return deeper == mine && KernelLink.currentClass() == mine ? mine : 0L;
    }

    /** Also answers to the RMI-IIOP repository id of {@link org.dthreads.iiop.rmi.HopRemote}, so RMI clients can narrow. */
    public static class CrossOrb extends HopServant {
        @Override
        public String[] _all_interfaces(org.omg.PortableServer.POA poa, byte[] objectId) {
            return new String[] {"IDL:org/dthreads/iiop/testidl/Hop:1.0", org.dthreads.iiop.rmi.HopRemote.REPOSITORY_ID};
        }
    }

    @Override
    public long originate(Hop next, long cls) {
        return 0L; // only non-Java peers originate contexts by hand
    }

    @Override
    public void fire() {
        lastOneway = KernelLink.currentClass();
    }

    @Override
    public long lastOneway() {
        return lastOneway;
    }

    @Override
    public long[] threadState() {
        long[] s = ServerIdentityInterceptor.threadState();
        return new long[] {s[0], s[1], KernelLink.boundClass()};
    }
}
