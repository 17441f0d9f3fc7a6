package org.dthreads.monitor.internal;

import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.dthreads.ThreadClass;

import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * Issue 15 §3: a class's last pending wait ends (its set empties and is dropped from {@code WAITS_BY_CLASS})
 * while a new wait of the class registers. The new wait must stay registered (interrupt routing finds it
 * there), never land in the set just dropped. Result: the new wait is registered (1/0).
 */
@JCStressTest
@Outcome(id = "1", expect = Expect.ACCEPTABLE, desc = "the new wait is registered")
@Outcome(expect = Expect.FORBIDDEN, desc = "the registration landed in a dropped set: lost")
@State
public class WaitRegistrationVersusRemovalStress {
    private static final AtomicInteger CLASSES = new AtomicInteger();
    /** A class of its own per state, so concurrent states do not share the map's key. */
    final long cls = ThreadClass.of(0x5255, 1 + (CLASSES.getAndIncrement() & 0x3fff_ffff));
    final WaitNode ending = new WaitNode(new Actor(null), cls, null);
    final WaitNode starting = new WaitNode(new Actor(null), cls, null);

    public WaitRegistrationVersusRemovalStress() {
        WaitsAndOrphans.waitStarted(ending);
    }

    @org.openjdk.jcstress.annotations.Actor
    public void lastWaitEnds() {
        WaitsAndOrphans.waitEnded(ending);
    }

    @org.openjdk.jcstress.annotations.Actor
    public void newWaitStarts() {
        WaitsAndOrphans.waitStarted(starting);
    }

    @Arbiter
    public void check(I_Result r) {
        Set<WaitNode> set = WaitsAndOrphans.WAITS_BY_CLASS.get(cls);
        r.r1 = set != null && set.contains(starting) ? 1 : 0;
        WaitsAndOrphans.WAITS_BY_CLASS.remove(cls);
    }
}
