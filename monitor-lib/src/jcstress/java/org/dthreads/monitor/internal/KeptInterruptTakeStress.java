package org.dthreads.monitor.internal;

import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * One interrupt kept for a class (a suspended actor's {@code classInterruptPending}, counted in
 * {@code PENDING_CLASS_INTERRUPTS}), taken at once by {@code Thread.interrupted()} of a thread acting for the
 * class ({@link InterruptStatus#takeAllKeptFor}) and by a wait of the class
 * ({@link InterruptRouting#takeClassInterrupt}): exactly one of them gets it, and the flag ends clear.
 */
@JCStressTest
@Outcome(id = {"1, 0, 0", "0, 1, 0"}, expect = Expect.ACCEPTABLE, desc = "delivered once")
@Outcome(expect = Expect.FORBIDDEN, desc = "delivered twice, lost, or left kept")
@State
public class KeptInterruptTakeStress {
    private static final AtomicLong CLASSES = new AtomicLong(Long.MIN_VALUE / 2);

    final long cls = CLASSES.incrementAndGet(); // one class per state: states run side by side
    final org.dthreads.monitor.internal.Actor suspended = new org.dthreads.monitor.internal.Actor(new Thread());

    public KeptInterruptTakeStress() {
        suspended.outgoingClass = cls;
        suspended.outgoingCalls = 1;
        InterruptRouting.SUSPENDED.put(suspended, false);
        suspended.classInterruptPending.set(true);
        InterruptRouting.PENDING_CLASS_INTERRUPTS.incrementAndGet();
    }

    @org.openjdk.jcstress.annotations.Actor
    public void interrupted(III_Result r) {
        r.r1 = InterruptStatus.takeAllKeptFor(cls) ? 1 : 0;
    }

    @org.openjdk.jcstress.annotations.Actor
    public void waitTakes(III_Result r) {
        r.r2 = InterruptRouting.takeClassInterrupt(cls) ? 1 : 0;
    }

    @Arbiter
    public void check(III_Result r) {
        r.r3 = suspended.classInterruptPending.get() ? 1 : 0;
        InterruptRouting.SUSPENDED.remove(suspended);
    }
}
