package org.dthreads.monitor.internal.callbacks;

import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A caller pops the one idle helper on the shared stack and hands it its call ({@link CallerHelper#handToIdle}: pop,
 * then {@link CallerHelper#tryHandOver}) just as the helper's idle time runs out ({@link CallerHelper#awaitCall}
 * with no idle time: it retires unless a call is there, and takes itself off the stack). Exactly one of the two
 * wins: the helper runs the call, or it retired and the caller found no idle helper (the caller popped it too late
 * and dropped it, or found the stack empty; either way it starts another). Never a call handed to a helper that has
 * ended (never run), a helper that takes a call not handed over or another one (run twice, or the wrong one), nor a
 * retired helper left on the stack for a later caller.
 * r1: 1 = handed over, 0 = no idle helper found; r2: 1 = the helper took the call handed over, 0 = it retired,
 * 2 = it took something else; r3: helpers left on the stack at the end.
 */
@JCStressTest
@Outcome(id = "1, 1, 0", expect = Expect.ACCEPTABLE, desc = "handed over; the helper took it")
@Outcome(id = "0, 0, 0", expect = Expect.ACCEPTABLE, desc = "the helper retired first and left; the caller starts another")
@Outcome(id = "1, 0, .*", expect = Expect.FORBIDDEN, desc = "handed to a retired helper: the call never runs")
@Outcome(id = "0, 1, .*", expect = Expect.FORBIDDEN, desc = "the helper took a call the caller did not hand over")
@Outcome(id = ".*, 2, .*", expect = Expect.FORBIDDEN, desc = "the helper took another call than the one handed over")
@Outcome(id = ".*", expect = Expect.FORBIDDEN, desc = "a retired helper left on the stack")
@State
public class HelperHandOverVersusRetireStress {
    final Deque<CallerHelper> idle = new ConcurrentLinkedDeque<>();
    final CallerHelper helper = new CallerHelper(idle, 0L);
    final Runnable work = () -> { };
    final CallbackReply reply = new CallbackReply(null);

    public HelperHandOverVersusRetireStress() {
        idle.offerFirst(helper); // idle on the stack, as after a call
    }

    @Actor
    public void caller(III_Result r) {
        r.r1 = CallerHelper.handToIdle(idle, work, reply) ? 1 : 0;
    }

    @Actor
    public void helper(III_Result r) {
        r.r2 = !helper.awaitCall() ? 0 : helper.handedWork() == work ? 1 : 2;
    }

    @Arbiter
    public void stackAfter(III_Result r) {
        r.r3 = idle.size();
    }
}
