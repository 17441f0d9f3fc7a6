package org.dthreads.monitor.internal;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A thread's reused suspended-threads entry, marked for a call that serves a chain after an earlier call
 * that did not, read by an interrupting thread (as {@code InterruptRouting} scans for hops to forward along):
 * a reader that sees the thread suspended must see that call's {@code servesChain}, never the earlier one's.
 * r1: 1 = the reader found the thread suspended; r2: 1 = its entry said it serves a chain.
 */
@JCStressTest
@Outcome(id = "0, 0", expect = Expect.ACCEPTABLE, desc = "read before the mark")
@Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "suspended, serving the chain")
@Outcome(id = "1, 0", expect = Expect.FORBIDDEN, desc = "suspended with the earlier call's servesChain")
@State
public class SuspendedMarkStress {
    final SuspendedThreads suspended = new SuspendedThreads(new AtomicInteger());
    final Actor actor = new Actor(new Thread("suspended-mark-stress"));

    {
        suspended.put(actor, false); // an earlier call, not serving a chain, ended
        suspended.remove(actor);
    }

    @org.openjdk.jcstress.annotations.Actor
    public void callerBegins() {
        suspended.put(actor, true);
    }

    @org.openjdk.jcstress.annotations.Actor
    public void interrupter(II_Result r) {
        for (SuspendedThreads.Entry e : suspended.entries()) {
            r.r1 = 1;
            r.r2 = e.servesChain ? 1 : 0;
        }
    }
}
