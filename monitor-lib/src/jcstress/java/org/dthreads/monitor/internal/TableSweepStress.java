package org.dthreads.monitor.internal;

import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Sweep versus lock-free lookup: an idle, unused key's binding sits in the same bucket as a recently used one's;
 * one thread looks the live key up (no lock) while another sweeps, which retires the idle one and rebuilds
 * the chain. The live key must keep its one monitor throughout, and the idle one be gone.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "live key found with its monitor; idle binding removed")
@Outcome(expect = Expect.FORBIDDEN, desc = "lost or duplicated monitor, or the idle binding kept")
@State
public class TableSweepStress {
    final MonitorTable table = new MonitorTable(1);
    final Object live = new Object();
    final Object idle;
    final Monitor liveMonitor;

    {
        Object candidate;
        do {
            candidate = new Object();
        } while (!table.sameFreshBucket(live, candidate));
        idle = candidate;
        table.bind(idle).recent = false;
        liveMonitor = table.getOrCreate(live);
        table.bind(live); // looked up again: recently used, so the sweep keeps it
    }

    @org.openjdk.jcstress.annotations.Actor
    public void lookup(II_Result r) {
        r.r1 = table.get(live) == liveMonitor ? 1 : 0;
    }

    @org.openjdk.jcstress.annotations.Actor
    public void sweep() {
        table.sweep();
    }

    @Arbiter
    public void check(II_Result r) {
        r.r2 = table.get(live) == liveMonitor && table.getOrCreate(live) == liveMonitor && table.size() == 1
                && table.get(idle) == null ? 1 : 0;
    }
}
