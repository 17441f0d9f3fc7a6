package org.dthreads.monitor.internal;

import org.dthreads.monitor.Monitors;

import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Two threads (two classes) enter, increment a plain field and exit the same fresh monitor. Mutual
 * exclusion and the release/acquire hand-off mean no increment is lost and the monitor ends free.
 */
@JCStressTest
@Outcome(id = "2, 0", expect = Expect.ACCEPTABLE, desc = "both increments seen, monitor free")
@Outcome(expect = Expect.FORBIDDEN, desc = "lost increment or monitor left held")
@State
public class HandOffStress {
    final Object lock = new Object();
    int counter;

    @org.openjdk.jcstress.annotations.Actor
    public void first() {
        Monitors.enter(lock);
        counter++;
        Monitors.exit(lock);
    }

    @org.openjdk.jcstress.annotations.Actor
    public void second() {
        Monitors.enter(lock);
        counter++;
        Monitors.exit(lock);
    }

    @Arbiter
    public void check(II_Result r) {
        r.r1 = counter;
        Monitor m = MonitorRuntime.TABLE.get(lock);
        r.r2 = m != null && m.getOwnerVolatile() != null && !m.isRetired() ? 1 : 0; // retired by a sweep: free
    }
}
