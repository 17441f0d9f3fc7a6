package org.dthreads.monitor.internal;

import org.dthreads.internal.KernelLink;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Retire versus enter: a sweep retires an idle, unused monitor while another thread, which looked it up
 * before, enters it (fast CAS, then the slow path, then a new look-up, as {@code MonitorRuntime.enter}).
 * The entering thread must end up owning the one monitor the table has for the key: either the old one
 * (the sweep found it owned and kept it) or a new one (retired first). r1: 1 = owns the table's monitor;
 * r2: 1 = the old monitor, 2 = a new one.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "entered first; the sweep kept the owned monitor")
@Outcome(id = "1, 2", expect = Expect.ACCEPTABLE_INTERESTING, desc = "retired first; entered the key's new monitor")
@Outcome(expect = Expect.FORBIDDEN, desc = "owns a monitor the table does not have (two monitors for one object)")
@State
public class TableRetireStress {
    final MonitorTable table = new MonitorTable(1);
    final Object key = new Object();
    final Monitor old;
    Monitor entered;
    long cls;

    {
        MonitorTable.Binding b = table.bind(key);
        b.recent = false;
        old = b.monitor;
    }

    @org.openjdk.jcstress.annotations.Actor
    public void enter() {
        Actor me = Actor.current();
        long c = KernelLink.currentClass();
        Monitor m = old; // looked up before the sweep, like a racing reader or a thread's cache
        while (!m.tryEnterFast(me, c, key) && !m.enterSlow(me, c, key)) {
            m = table.getOrCreate(key);
        }
        entered = m;
        cls = c;
    }

    @org.openjdk.jcstress.annotations.Actor
    public void sweep() {
        table.sweep();
    }

    @Arbiter
    public void check(II_Result r) {
        r.r1 = table.get(key) == entered && entered.holdsFor(cls) && !entered.isRetired() ? 1 : 0;
        r.r2 = entered == old ? 1 : 2;
    }
}
