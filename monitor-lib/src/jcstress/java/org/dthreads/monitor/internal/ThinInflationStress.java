package org.dthreads.monitor.internal;

import org.dthreads.monitor.Monitors;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Two threads (two classes) enter a fresh slotted object twice (a re-entry), increment a plain field and exit: one
 * takes the slot thin ({@link ThinLock}) and the other, finding it held, inflates it while the holder re-enters or
 * exits by CAS on the thin value, or takes it thin after the holder freed it. No increment may be lost and the
 * object must end free: r1 the counter, r2 0 if the slot ends empty, 1 if it ends with a free monitor, 2 otherwise.
 */
@JCStressTest
@Outcome(id = "2, 0", expect = Expect.ACCEPTABLE, desc = "no contention: thin both times, nothing left")
@Outcome(id = "2, 1", expect = Expect.ACCEPTABLE, desc = "contended: inflated, free at the end")
@Outcome(expect = Expect.FORBIDDEN, desc = "a lost increment, or the object left held")
@State
public class ThinInflationStress {

    final SlottedObject key = new SlottedObject();

    @org.openjdk.jcstress.annotations.Actor
    public void first() {
        increment();
    }

    @org.openjdk.jcstress.annotations.Actor
    public void second() {
        increment();
    }

    private void increment() {
        Monitors.enter(key);
        Monitors.enter(key);
        key.counter++;
        Monitors.exit(key);
        Monitors.exit(key);
    }

    @Arbiter
    public void check(II_Result r) {
        r.r1 = key.counter;
        Object v = MonitorSlots.slotOf(key).getVolatile(key);
        r.r2 = v == null ? 0 : v instanceof Monitor m && m.getOwnerVolatile() == null ? 1 : 2;
    }
}
