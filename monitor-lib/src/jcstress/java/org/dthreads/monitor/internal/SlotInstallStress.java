package org.dthreads.monitor.internal;

import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * Two threads look up the monitor of the same slotted object (a class with a monitor slot,
 * {@link MonitorSlots}); one of them first looks up the slotted clone of another object, whose slot still
 * holds the original's monitor (copied), so the race also meets the replace-a-copied-slot CAS. Both must
 * get the one monitor the slot then holds, owned by the object; the clone must get its own.
 */
@JCStressTest
@Outcome(id = "1", expect = Expect.ACCEPTABLE, desc = "one monitor per object")
@Outcome(id = "0", expect = Expect.FORBIDDEN, desc = "two monitors for one object, or a shared one")
@State
public class SlotInstallStress {
    /** Declares the slot the rewriter would add. */
    static final class Slotted implements Cloneable {
        @SuppressWarnings("unused")
        private transient Object $dthreads$monitor;

        Slotted copy() {
            try {
                return (Slotted) clone();
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    final MonitorTable table = new MonitorTable(1);
    final Slotted key = new Slotted();
    final Slotted original = new Slotted();
    final Slotted copy;

    {
        table.getOrCreate(original);
        copy = original.copy();
    }

    Monitor a;
    Monitor b;
    Monitor c;
    Monitor d;

    @org.openjdk.jcstress.annotations.Actor
    public void first() {
        a = table.slotMonitor(key);
        c = table.getOrCreate(copy);
    }

    @org.openjdk.jcstress.annotations.Actor
    public void second() {
        d = table.slotMonitor(copy);
        b = table.getOrCreate(key);
    }

    @Arbiter
    public void check(I_Result r) {
        boolean one = a == b && a == table.get(key) && a.slotOwner == key;
        boolean copyOwn = c == d && c == table.get(copy) && c.slotOwner == copy && c != table.get(original);
        r.r1 = one && copyOwn ? 1 : 0;
    }
}
