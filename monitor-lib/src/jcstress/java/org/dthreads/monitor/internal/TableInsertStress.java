package org.dthreads.monitor.internal;


import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * Two threads look up the monitor of the same new object (lock-free read, then locked insert) in a
 * two-segment table; one of them first inserts 40 unrelated keys, so the race also meets resizes (a
 * segment starts at 16 buckets and grows past 12 entries). Both must get the one and only monitor.
 */
@JCStressTest
@Outcome(id = "1", expect = Expect.ACCEPTABLE, desc = "one monitor per object")
@Outcome(id = "0", expect = Expect.FORBIDDEN, desc = "two monitors for one object")
@State
public class TableInsertStress {
    final MonitorTable table = new MonitorTable(1); // two segments: the 17 keys force resizes
    final Object key = new Object();
    final Object[] others = new Object[40];

    {
        for (int i = 0; i < others.length; i++) {
            others[i] = new Object();
        }
    }

    Monitor a;
    Monitor b;

    @org.openjdk.jcstress.annotations.Actor
    public void first() {
        a = table.getOrCreate(key);
    }

    @org.openjdk.jcstress.annotations.Actor
    public void second() {
        for (Object o : others) {
            table.getOrCreate(o);
        }
        b = table.getOrCreate(key);
    }

    @Arbiter
    public void check(I_Result r) {
        r.r1 = a == b && a == table.get(key) ? 1 : 0;
    }
}
