package org.dthreads.iiop.support;

import org.omg.CORBA.BAD_OPERATION;
import org.omg.CORBA.ServerRequest;
import org.omg.PortableServer.DynamicImplementation;
import org.omg.PortableServer.POA;

/** A DSI servant that knows no operation of its own (every request but the monitor's fails). */
public class DsiServant extends DynamicImplementation {
    @Override
    public String[] _all_interfaces(POA poa, byte[] objectId) {
        return new String[] {"IDL:org/dthreads/test/Dsi:1.0"};
    }

    @Override
    public void invoke(ServerRequest request) {
        synchronized (this) { // a real body: the servant's own locking that a remote holder excludes
            throw new BAD_OPERATION("DsiServant knows no operation " + request.operation());
        }
    }
}
