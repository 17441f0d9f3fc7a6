package org.dthreads.benchmarks.iiop;

import java.util.List;
import org.dthreads.benchmarks.rmi.CallbackPairs;

/**
 * Issue 18: the cost of {@code -Ddthreads.callbacks=original} over IIOP on JacORB (the agent's fast path), paired
 * in one run: {@link org.dthreads.benchmarks.rmi.CallbackLatency}'s method ({@link CallbackPairs}) with
 * {@link IiopCallbackSite} JVMs: {@code bounce(0)} is a plain call, {@code bounce(1)} calls the caller back once.
 * Run from the repository root (the agent jar must be built):
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar org.dthreads.benchmarks.iiop.IiopCallbackLatency [rounds] [callsPerBlock] [aa]
 * </pre>
 * With {@code aa} both pairs run in take-over mode (the A/A control).
 */
public final class IiopCallbackLatency {

    private IiopCallbackLatency() {}

    public static void main(String[] args) throws Exception {
        // in scope, so that the agent patches its _invoke for remote monitor requests and site hellos, as it would
        // an application servant
        CallbackPairs.run(" over IIOP (JacORB)", IiopCallbackSite.class.getName(),
                List.of("-Ddthreads.include=" + IiopCallbackSite.class.getName()), args);
    }
}
