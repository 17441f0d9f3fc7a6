package org.dthreads.monitor.internal;

import org.dthreads.monitor.Monitors;

import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The holder loses an inner exit and goes on re-entering and exiting (its fast path writes the depth
 * with plain writes) while a third party settles the debt: the owner's operations settle first (under
 * the same lock) or see it paid, so the depth is never written by both. Result: the holder's last exit
 * failed (1/0), monitor held after it (1/0), levels still recorded.
 */
@JCStressTest
@Outcome(id = "0, 0, 0", expect = Expect.ACCEPTABLE, desc = "every level released exactly once")
@Outcome(expect = Expect.FORBIDDEN, desc = "a level paid twice (exit fails) or lost (monitor held)")
@State
public class LostExitOwnerReentryVersusSettleStress {
    final Object lock = new Object();
    int exitFailed;

    @org.openjdk.jcstress.annotations.Actor
    public void holder() {
        try {
            Monitors.enter(lock);
            Monitors.enter(lock);
            LostExits.record(lock, 1); // the inner exit, lost
            Monitors.enter(lock);      // re-entry: settles first, or finds the debt paid
            Monitors.exit(lock);
            Monitors.exit(lock);       // the outer level
        } catch (IllegalMonitorStateException e) {
            exitFailed = 1;
        }
    }

    @org.openjdk.jcstress.annotations.Actor
    public void thirdParty() {
        LostExits.settleQuietly();
    }

    @Arbiter
    public void check(III_Result r) {
        Monitor m = MonitorRuntime.TABLE.get(lock);
        r.r1 = exitFailed;
        r.r2 = m != null && m.getOwnerVolatile() != null && !m.isRetired() ? 1 : 0; // retired by a sweep: free
        r.r3 = LostExitRecordVersusSettleStress.levelsOf(lock);
    }
}
