package org.dthreads.monitor.internal;

import org.dthreads.monitor.Monitors;

import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Re-entrant holds racing: each thread enters twice, reads-then-writes between the levels. The depth is
 * owner-confined; a torn hand-off would let the second thread in at depth 1 of the first.
 */
@JCStressTest
@Outcome(id = "4, 0", expect = Expect.ACCEPTABLE, desc = "all four increments, monitor free")
@Outcome(expect = Expect.FORBIDDEN, desc = "exclusion broken or monitor left held")
@State
public class ReentrantHandOffStress {
    final Object lock = new Object();
    int counter;

    private void twice() {
        Monitors.enter(lock);
        int a = counter;
        Monitors.enter(lock);
        counter = a + 1;
        Monitors.exit(lock);
        counter++;
        Monitors.exit(lock);
    }

    @org.openjdk.jcstress.annotations.Actor
    public void first() {
        twice();
    }

    @org.openjdk.jcstress.annotations.Actor
    public void second() {
        twice();
    }

    @Arbiter
    public void check(II_Result r) {
        r.r1 = counter;
        Monitor m = MonitorRuntime.TABLE.get(lock);
        r.r2 = m != null && m.getOwnerVolatile() != null && !m.isRetired() ? 1 : 0; // retired by a sweep: free
    }
}
