package org.dthreads.monitor.internal.callbacks;

import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Two callers race for the one idle helper on the shared stack ({@link CallerHelper#handToIdle}): exactly one pops
 * it and hands it its call, the other finds the stack empty (and starts a helper). Never both (a helper handed two
 * calls: one lost, or one run twice), never neither (an idle helper skipped), and the call the helper holds is the
 * winner's. r1, r2: 1 = that caller handed its call over, 0 = it found no idle helper; r3: which caller's call the
 * helper holds (1 or 2; 0 = none, 3 = something else), or 4 if a helper is still on the stack.
 */
@JCStressTest
@Outcome(id = "1, 0, 1", expect = Expect.ACCEPTABLE, desc = "caller 1 popped it; it holds caller 1's call")
@Outcome(id = "0, 1, 2", expect = Expect.ACCEPTABLE, desc = "caller 2 popped it; it holds caller 2's call")
@Outcome(id = "1, 1, .*", expect = Expect.FORBIDDEN, desc = "one idle helper handed two calls")
@Outcome(id = "0, 0, .*", expect = Expect.FORBIDDEN, desc = "the idle helper was found by neither caller")
@Outcome(id = ".*", expect = Expect.FORBIDDEN, desc = "the helper holds another call than the winner's")
@State
public class HelperPopVersusPopStress {
    final Deque<CallerHelper> idle = new ConcurrentLinkedDeque<>();
    final CallerHelper helper = new CallerHelper(idle, TimeUnit.SECONDS.toNanos(30));
    final Runnable work1 = () -> { };
    final Runnable work2 = () -> { };
    final CallbackReply reply = new CallbackReply(null);

    public HelperPopVersusPopStress() {
        idle.offerFirst(helper); // idle on the stack, as after a call
    }

    @Actor
    public void caller1(III_Result r) {
        r.r1 = CallerHelper.handToIdle(idle, work1, reply) ? 1 : 0;
    }

    @Actor
    public void caller2(III_Result r) {
        r.r2 = CallerHelper.handToIdle(idle, work2, reply) ? 1 : 0;
    }

    @Arbiter
    public void held(III_Result r) {
        Runnable held = helper.handedWork(); // no helper thread runs: the handed call stays in the field
        r.r3 = !idle.isEmpty() ? 4 : held == work1 ? 1 : held == work2 ? 2 : held == null ? 0 : 3;
    }
}
