package org.dthreads.rmi.internal;

import java.rmi.server.RemoteRef;

/** An invocation handler that stands for a JRMP stub (the no-agent wrapper): gives its reference. */
public interface RemoteRefCarrier {
    /** @return the reference of the stub this handler stands for */
    RemoteRef remoteRef();
}
