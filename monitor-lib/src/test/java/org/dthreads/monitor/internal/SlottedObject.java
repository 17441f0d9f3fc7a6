package org.dthreads.monitor.internal;

/**
 * An object of a class as the rewriter leaves it, for tests without the agent: the monitor slot it adds
 * ({@link MonitorSlots}) and its mark (emulated for every monitor operation). {@link #counter} is for tests to
 * guard with the monitor.
 */
@org.dthreads.monitor.Rewritten
public final class SlottedObject {
    @SuppressWarnings("unused") // written by the monitor runtime through a VarHandle
    private transient Object $dthreads$monitor;
    public int counter;
}
