package org.dthreads.monitor.internal;

import org.dthreads.monitor.Monitors;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A copied thin value ({@link ThinLock}, "Copies"): the first thread locks {@code original} thin, copies its slot into
 * {@code copy} (as {@code clone} inside a synchronized method does; only if nobody has taken {@code copy} yet: a
 * copy appears only in an object nobody uses), releases {@code original}, then locks {@code copy} itself; the second
 * thread locks {@code copy} meanwhile. The copy names the first thread's hold although nobody holds {@code copy}:
 * whoever comes first must be let in, the other must wait for it, and nobody may be kept out for good. r1: the
 * copy's counter (2: both got in, one after the other); r2: 1 if the copy ends free, else 0.
 */
@JCStressTest
@Outcome(id = "2, 1", expect = Expect.ACCEPTABLE, desc = "both got in, one at a time; the copy ends free")
@Outcome(expect = Expect.FORBIDDEN, desc = "a lost increment or the copy left held")
@State
public class ThinCopyVersusAcquireStress {

    static final MonitorSlots.Slot SLOT = MonitorSlots.slotOf(new SlottedObject());

    final SlottedObject original = new SlottedObject();
    final SlottedObject copy = new SlottedObject();

    @org.openjdk.jcstress.annotations.Actor
    public void copier() {
        Monitors.enter(original);
        SLOT.compareAndSet(copy, (Object) null, SLOT.getVolatile(original)); // the copy, if nobody took it yet
        Monitors.exit(original);
        Monitors.enter(copy);
        copy.counter++;
        Monitors.exit(copy);
    }

    @org.openjdk.jcstress.annotations.Actor
    public void other() {
        Monitors.enter(copy);
        copy.counter++;
        Monitors.exit(copy);
    }

    @Arbiter
    public void check(II_Result r) {
        r.r1 = copy.counter;
        Object v = SLOT.getVolatile(copy);
        r.r2 = v == null || v instanceof Monitor m && m.getOwnerVolatile() == null ? 1 : 0;
    }
}
