package org.dthreads.monitor.internal.callbacks;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A caller hands a call to its idle platform helper ({@link CallerHelper#tryHandOver}) just as the helper's idle
 * time runs out ({@link CallerHelper#awaitCall} with no idle time: it retires unless a call is there). Exactly one
 * of the two wins: the helper runs the call, or the caller sees it retired (and starts another helper). Never a
 * call handed to a helper that has ended (never run), nor a helper that takes a call not handed over or another
 * one (run twice, or the wrong one).
 * r1: 1 = handed over, 0 = the helper had retired; r2: 1 = the helper took the call handed over, 0 = it retired,
 * 2 = it took something else.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "handed over; the helper took it")
@Outcome(id = "0, 0", expect = Expect.ACCEPTABLE, desc = "the helper retired first; the caller starts another")
@Outcome(id = "1, 0", expect = Expect.FORBIDDEN, desc = "handed to a retired helper: the call never runs")
@Outcome(id = "0, 1", expect = Expect.FORBIDDEN, desc = "the helper took a call the caller did not hand over")
@Outcome(id = ".*, 2", expect = Expect.FORBIDDEN, desc = "the helper took another call than the one handed over")
@State
public class HelperHandOverVersusRetireStress {
    final CallerHelper helper = new CallerHelper(Thread.currentThread(), 0L);
    final Runnable work = () -> { };
    final CallbackReply reply = new CallbackReply(null);

    @Actor
    public void caller(II_Result r) {
        r.r1 = helper.tryHandOver(work, reply) == CallerHelper.IDLE ? 1 : 0;
    }

    @Actor
    public void helper(II_Result r) {
        r.r2 = !helper.awaitCall() ? 0 : helper.handedWork() == work ? 1 : 2;
    }
}
