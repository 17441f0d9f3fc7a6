package org.dthreads.benchmarks.iiop;

import java.util.List;
import org.dthreads.benchmarks.rmi.CallbackPairs;

/**
 * Issue 18: the cost of {@code -Ddthreads.callbacks=original} over IIOP, paired in one run:
 * {@link org.dthreads.benchmarks.rmi.CallbackLatency}'s method ({@link CallbackPairs}) with {@link IiopCallbackSite}
 * JVMs on JacORB's fast path (argument {@code glassfish}: the GlassFish ORB's, CORBA with the same servant):
 * {@code bounce(0)} is a plain call, {@code bounce(1)} calls the caller back once. Run from the repository root
 * (the agent jar and this jar must be built in one reactor, {@code ./mvnw -pl benchmarks,dthreads-agent -am package
 * -DskipTests}: built alone, the benchmark jar shades the dthreads modules from the local repository, whatever
 * version is there; a stale iiop-adapter without the GlassFish client hook made the "original" pair measure
 * take-over mode, which the closing check of {@link CallbackPairs} now reports):
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar org.dthreads.benchmarks.iiop.IiopCallbackLatency \
 *     [rounds] [callsPerBlock] [ot|aa] [jacorb|glassfish]
 * </pre>
 * {@code ot} (the default) runs O against T; {@code aa} both pairs in take-over mode (the A/A control).
 */
public final class IiopCallbackLatency {

    private IiopCallbackLatency() {}

    public static void main(String[] args) throws Exception {
        boolean glassfish = args.length > 3 && args[3].equals("glassfish");
        // the site in the rewrite scope, so that its monitors are emulated as an application's; the servant patch
        // (ServantInvokePatch) skips every class under org/dthreads/ whatever the scope says, so IiopCallbackSite's
        // _invoke answers remote monitor requests and site hellos by hand
        CallbackPairs.run(glassfish ? " over IIOP (GlassFish ORB)" : " over IIOP (JacORB)",
                glassfish ? List.of(IiopCallbackSite.class.getName(), "glassfish") : List.of(IiopCallbackSite.class.getName()),
                List.of("-Ddthreads.include=" + IiopCallbackSite.class.getName()), args);
    }
}
