package org.dthreads.monitor.internal;

import org.dthreads.monitor.Monitors;

import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A holder records a lost exit (as a stack overflow in its exit would) while a third party settles: the
 * debt is either paid by that settlement or left for the next one (the arbiter's, standing for a parked
 * entrant's backstop), never lost or paid twice. Result: monitor held (1/0), levels still recorded.
 */
@JCStressTest
@Outcome(id = "0, 0", expect = Expect.ACCEPTABLE, desc = "the lost exit was paid; the monitor is free")
@Outcome(expect = Expect.FORBIDDEN, desc = "a debt lost, paid twice, or left recorded")
@State
public class LostExitRecordVersusSettleStress {
    final Object lock = new Object();

    @org.openjdk.jcstress.annotations.Actor
    public void holder() {
        Monitors.enter(lock);
        Monitors.enter(lock);
        Monitors.exit(lock);
        LostExits.record(lock, 1); // the outer exit, lost; no further monitor operation
    }

    @org.openjdk.jcstress.annotations.Actor
    public void thirdParty() {
        LostExits.settleQuietly();
    }

    @Arbiter
    public void check(II_Result r) {
        LostExits.settleQuietly();
        Monitor m = MonitorRuntime.TABLE.get(lock);
        r.r1 = m != null && m.getOwnerVolatile() != null && !m.isRetired() ? 1 : 0; // retired by a sweep: free
        r.r2 = levelsOf(lock);
    }

    static int levelsOf(Object key) {
        synchronized (LostExits.LOCK) {
            for (int i = 0; i < LostExits.SLOTS; i++) {
                if (LostExits.KEYS[i] == key) {
                    return LostExits.LEVELS[i];
                }
            }
            return 0;
        }
    }
}
