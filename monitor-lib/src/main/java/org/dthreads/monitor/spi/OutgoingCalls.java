package org.dthreads.monitor.spi;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import org.dthreads.internal.BootDelegation;
import org.dthreads.monitor.internal.MonitorRuntime;

/**
 * Hooks the RMI and IIOP adapters call around every outgoing remote call, on the calling thread:
 *
 * <pre>{@code
 * OutgoingCalls.begin();
 * try {
 *     return invokeRemote(...);
 * } finally {
 *     OutgoingCalls.end();
 * }
 * }</pre>
 *
 * While a thread is between {@code begin} and {@code end} it is <em>suspended</em>: another physical
 * thread acting for the same class (a server thread serving a callback of this call chain) may act as the
 * owner of the monitors this thread's class holds, and an interrupt of this thread reaches the class's
 * emulated waits on this site. Calls nest; each {@code begin} needs one {@code end}. Never throws.
 */
public final class OutgoingCalls {
    private static final boolean DELEGATES =
            BootDelegation.runtimeClass(MonitorRuntime.class) != MonitorRuntime.class;
    private static final MethodHandle BEGIN = BootDelegation.staticMethod(MonitorRuntime.class, "beginOutgoingCall",
            MethodType.methodType(void.class));
    private static final MethodHandle BEGIN_TO = BootDelegation.staticMethod(MonitorRuntime.class,
            "beginOutgoingCall", MethodType.methodType(void.class, Object.class));
    private static final MethodHandle END = BootDelegation.staticMethod(MonitorRuntime.class, "endOutgoingCall",
            MethodType.methodType(void.class));

    private OutgoingCalls() {}

    /**
     * Marks the calling thread as suspended in an outgoing remote call, until the matching {@link #end()}.
     * Call it just before the call is sent; never throws.
     */
    public static void begin() {
        if (!DELEGATES) {
            MonitorRuntime.beginOutgoingCall();
            return;
        }
        try {
            BEGIN.invokeExact();
        } catch (Throwable ignored) {
            // never throws: the runtime logs its own failures
        }
    }

    /**
     * As {@link #begin()}, naming where the call goes: {@code remoteReference} is the stub (a reference
     * that a registered {@link RemoteMonitorTransport} handles). While the call is pending, an interrupt of
     * the calling thread through {@link org.dthreads.monitor.Monitors#interrupt} is forwarded to that site and on along the call
     * chain to the wait of the class that blocks there (see {@code docs/remote-monitors.md}, "Interrupts").
     * Never throws.
     *
     * @param remoteReference the stub the call is made on, or null
     */
    public static void begin(Object remoteReference) {
        if (!DELEGATES) {
            MonitorRuntime.beginOutgoingCall(remoteReference);
            return;
        }
        try {
            BEGIN_TO.invokeExact(remoteReference);
        } catch (Throwable ignored) {
            // never throws: the runtime logs its own failures
        }
    }

    /**
     * Ends the calling thread's innermost outgoing call begun with {@link #begin()}; once the outermost one
     * ends the thread is no longer suspended. Call it in a {@code finally} after the call; never throws.
     */
    public static void end() {
        if (!DELEGATES) {
            MonitorRuntime.endOutgoingCall();
            return;
        }
        try {
            END.invokeExact();
        } catch (Throwable ignored) {
            // never throws
        }
    }
}
