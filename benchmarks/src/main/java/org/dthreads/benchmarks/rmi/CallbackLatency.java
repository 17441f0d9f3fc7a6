package org.dthreads.benchmarks.rmi;

import java.util.List;

/**
 * Issue 18: the cost of {@code -Ddthreads.callbacks=original} over JRMP, paired in one run. Two pairs of JVMs on
 * loopback, all with the agent: pair <em>O</em> in the original-thread mode, pair <em>T</em> in take-over mode
 * (the default). In each pair one JVM calls the other's {@code Bounce.bounce(self, depth)}:
 * <ul>
 *   <li>depth 0: a plain call, no callback (what the mode costs a call that is not a callback);</li>
 *   <li>depth 1: the callee calls the caller back once before returning (one callback hop: in O the callback
 *       runs on the calling thread, in T on a server thread).</li>
 * </ul>
 * Blocks of calls alternate between the pairs (order swapped every round), so machine noise hits both alike;
 * each round gives each pair's median per depth, and the report gives the median of the per-round differences
 * O − T (µs) and ratios O / T with 95% bootstrap confidence intervals ({@link CallbackPairs}). Run from the
 * repository root:
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar org.dthreads.benchmarks.rmi.CallbackLatency [rounds] [callsPerBlock] [aa]
 * </pre>
 * With {@code aa} both pairs run in take-over mode (an A/A run: any difference is between pairs of JVMs, not
 * between the modes).
 */
public final class CallbackLatency {

    private static final String INCLUDE = "-Ddthreads.include=org.dthreads.benchmarks.rmi.twinned.";

    private CallbackLatency() {}

    public static void main(String[] args) throws Exception {
        CallbackPairs.run("", List.of(CallbackSite.class.getName()), List.of(INCLUDE), args);
    }
}
