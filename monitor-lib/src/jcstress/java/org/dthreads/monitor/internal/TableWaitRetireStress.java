package org.dthreads.monitor.internal;

import org.dthreads.internal.KernelLink;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * Retire versus a wait's re-acquire: the owner waits with a tiny timeout, which frees the monitor while
 * it sleeps and re-acquires it from free afterwards, and a sweep runs meanwhile. The monitor must not be
 * retired under the waiter (it would park for ever, or own a monitor the table dropped): after the wait
 * the waiter owns the table's monitor for the key.
 */
@JCStressTest
@Outcome(id = "1", expect = Expect.ACCEPTABLE, desc = "the waiter re-acquired the key's one monitor")
@Outcome(id = "0", expect = Expect.ACCEPTABLE_INTERESTING, desc = "retired before the waiter entered")
@Outcome(expect = Expect.FORBIDDEN, desc = "retired under a waiter")
@State
public class TableWaitRetireStress {
    final MonitorTable table = new MonitorTable(1);
    final Object key = new Object();
    final Monitor monitor;
    int outcome; // 0: retired before the waiter entered; 1: owned the key's monitor after the wait; 2: did not

    {
        MonitorTable.Binding b = table.bind(key);
        b.recent = false;
        monitor = b.monitor;
    }

    @org.openjdk.jcstress.annotations.Actor
    public void waiter() {
        Actor me = Actor.current();
        long cls = KernelLink.currentClass();
        if (!monitor.tryEnterFast(me, cls, key) && !monitor.enterSlow(me, cls, key)) {
            outcome = 0; // retired before we entered: allowed
            return;
        }
        int begun = monitor.beginOwnerOperation(me, cls);
        monitor.waitOn(me, cls, key, 5_000L, begun); // 5 µs
        outcome = monitor.holdsFor(cls) && !monitor.isRetired() && table.get(key) == monitor ? 1 : 2;
        monitor.exit(me, cls);
    }

    @org.openjdk.jcstress.annotations.Actor
    public void sweep() {
        table.sweep();
    }

    @Arbiter
    public void check(I_Result r) {
        r.r1 = outcome;
    }
}
