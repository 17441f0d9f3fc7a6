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
 * segment starts at 16 buckets and grows past 12 entries). A resize first sweeps: a binding inserted and not
 * looked up since is idle and may be retired and dropped then (the table's design), so the other thread may get a
 * new monitor for the key; what must never happen is two live monitors for one object. The table answers the
 * live one at the end; each thread's monitor is that one, or retired.
 */
@JCStressTest
@Outcome(id = "1", expect = Expect.ACCEPTABLE, desc = "one monitor per object")
@Outcome(id = "2", expect = Expect.ACCEPTABLE, desc = "an idle monitor retired by a resize's sweep, then replaced")
@Outcome(id = "0", expect = Expect.FORBIDDEN, desc = "two live monitors for one object, or none live")
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
        Monitor live = table.get(key); // this table sweeps only before it grows: nothing sweeps after the actors
        boolean oneLive = live != null && !live.isRetired() && (a == live || a.isRetired())
                && (b == live || b.isRetired());
        r.r1 = !oneLive ? 0 : a == b ? 1 : 2;
    }
}
