package org.dthreads.monitor.internal;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * An interrupt of a thread suspended in a call, forwarded, against the end of that call (the flake of
 * {@code VirtualThreadsTest}'s interrupt cases: delivered at the callee and again as the caller's status). The
 * interrupter keeps the interrupt for the class and claims the forward ({@link InterruptRouting#claimForward});
 * the forward here is answered at once, DELIVERED (a wait at the callee took it: one delivery, r1) and withdraws
 * the kept interrupt; if the claim came too late it decides against the end through {@code SUSPENDED} and the flag
 * (r2: it set the thread's status). The end swaps the forward out ({@link InterruptRouting#endForwards}), leaves
 * {@code SUSPENDED}, waits for the forward it swapped out, and takes what is still kept (r3: its own status).
 * Delivered exactly once, and nothing left kept (r4).
 */
@JCStressTest
@Outcome(id = {"1, 0, 0, 0", "0, 1, 0, 0", "0, 0, 1, 0"}, expect = Expect.ACCEPTABLE, desc = "delivered once")
@Outcome(expect = Expect.FORBIDDEN, desc = "delivered twice, lost, or left kept")
@State
public class ForwardVersusCallEndStress {
    private static final AtomicLong CLASSES = new AtomicLong(Long.MIN_VALUE / 4);

    final Actor caller = new Actor(new Thread());

    public ForwardVersusCallEndStress() {
        caller.outgoingClass = CLASSES.incrementAndGet(); // one class per state: states run side by side
        caller.outgoingCalls = 1;
        InterruptRouting.SUSPENDED.put(caller, false);
    }

    @org.openjdk.jcstress.annotations.Actor
    public void interrupter(IIII_Result r) {
        InterruptRouting.keepClassInterrupt(caller);
        CountDownLatch done = new CountDownLatch(1);
        if (InterruptForwarding.claimForward(caller, done)) {
            r.r1 = 1; // the callee's wait took it (DELIVERED): withdraw the kept one, answer
            InterruptRouting.takeKeptInterrupt(caller);
            done.countDown();
        } else if (!InterruptRouting.SUSPENDED.containsKey(caller.thread) && InterruptRouting.takeKeptInterrupt(caller)) {
            r.r2 = 1;
        }
    }

    @org.openjdk.jcstress.annotations.Actor
    public void callEnds(IIII_Result r) {
        CountDownLatch forward = InterruptForwarding.endForwards(caller);
        InterruptRouting.SUSPENDED.remove(caller);
        if (forward != null) {
            while (forward.getCount() != 0) {
                Thread.onSpinWait(); // the interrupter answers without blocking
            }
        }
        r.r3 = InterruptRouting.takeKeptInterrupt(caller) ? 1 : 0;
    }

    @Arbiter
    public void check(IIII_Result r) {
        r.r4 = caller.classInterruptPending.get() ? 1 : 0;
    }
}
