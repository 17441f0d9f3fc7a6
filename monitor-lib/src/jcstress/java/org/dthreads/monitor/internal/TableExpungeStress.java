package org.dthreads.monitor.internal;

import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Expunge versus lock-free lookup: a collected key's entry sits in the same bucket as a live key's; one
 * thread looks the live key up (no lock) while another inserts a new key, which expunges the stale entry
 * by rebuilding the chain. The live key must keep its one monitor throughout, and the stale one be gone.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "live key found with its monitor; stale entry removed")
@Outcome(expect = Expect.FORBIDDEN, desc = "lost or duplicated monitor")
@State
public class TableExpungeStress {
    final MonitorTable table = new MonitorTable(1);
    final Object live = new Object();
    final Object stale;
    final Object fresh = new Object();
    final Monitor liveMonitor;

    {
        Object candidate;
        do {
            candidate = new Object();
        } while (!table.sameFreshBucket(live, candidate));
        stale = candidate;
        table.getOrCreate(stale);
        liveMonitor = table.getOrCreate(live);
        table.simulateCollected(stale);
    }

    @org.openjdk.jcstress.annotations.Actor
    public void lookup(II_Result r) {
        r.r1 = table.get(live) == liveMonitor ? 1 : 0;
    }

    @org.openjdk.jcstress.annotations.Actor
    public void insert() {
        table.getOrCreate(fresh);
    }

    @Arbiter
    public void check(II_Result r) {
        r.r2 = table.get(live) == liveMonitor && table.getOrCreate(live) == liveMonitor && table.size() == 2 ? 1 : 0;
    }
}
