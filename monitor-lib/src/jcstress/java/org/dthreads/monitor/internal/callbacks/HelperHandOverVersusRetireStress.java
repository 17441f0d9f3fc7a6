package org.dthreads.monitor.internal.callbacks;

import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * Two callers pop the one idle helper on the shared stack and hand it their call
 * ({@link CallerHelper#handToIdle}: pop, then {@link CallerHelper#tryHandOver}) just as the helper's idle time runs
 * out ({@link CallerHelper#awaitCall} with no idle time: it retires unless a call is there, and takes itself off the
 * stack). Exactly one of the three wins: one caller's call is run by the helper (the other caller found the stack
 * empty and starts a helper), or the helper retired (both callers start one). Never a call handed to a helper that
 * has ended (never run), two calls handed to one helper (one lost), a call taken that was not handed over, nor a
 * retired helper left on the stack.
 * r1, r2: 1 = that caller handed its call over, 0 = it found no idle helper; r3: 1 or 2 = the helper took caller 1's
 * or caller 2's call, 0 = it retired, 3 = it took something else; r4: helpers left on the stack.
 */
@JCStressTest
@Outcome(id = "1, 0, 1, 0", expect = Expect.ACCEPTABLE, desc = "caller 1 popped it and handed over; it took that call")
@Outcome(id = "0, 1, 2, 0", expect = Expect.ACCEPTABLE, desc = "caller 2 popped it and handed over; it took that call")
@Outcome(id = "0, 0, 0, 0", expect = Expect.ACCEPTABLE, desc = "it retired first; both callers start a helper")
@Outcome(id = "1, 1, .*", expect = Expect.FORBIDDEN, desc = "both callers handed a call: one of them is lost")
@Outcome(id = "1, 0, [02], .*", expect = Expect.FORBIDDEN, desc = "caller 1's call lost (helper retired or took another)")
@Outcome(id = "0, 1, [01], .*", expect = Expect.FORBIDDEN, desc = "caller 2's call lost (helper retired or took another)")
@Outcome(id = "0, 0, [123], .*", expect = Expect.FORBIDDEN, desc = "the helper took a call nobody handed over")
@Outcome(id = ".*", expect = Expect.FORBIDDEN, desc = "a helper left on the stack, or another mix-up")
@State
public class HelperHandOverVersusRetireStress {
    final Deque<CallerHelper> idle = new ConcurrentLinkedDeque<>();
    final CallerHelper helper = new CallerHelper(idle, 0L);
    final Runnable work1 = () -> { };
    final Runnable work2 = () -> { };
    final CallbackReply reply = new CallbackReply(null);

    public HelperHandOverVersusRetireStress() {
        idle.offerFirst(helper); // idle on the stack, as after a call
    }

    @Actor
    public void caller1(IIII_Result r) {
        r.r1 = CallerHelper.handToIdle(idle, work1, reply) ? 1 : 0;
    }

    @Actor
    public void caller2(IIII_Result r) {
        r.r2 = CallerHelper.handToIdle(idle, work2, reply) ? 1 : 0;
    }

    @Actor
    public void helper(IIII_Result r) {
        if (!helper.awaitCall()) {
            r.r3 = 0;
        } else {
            Runnable taken = helper.handedWork();
            r.r3 = taken == work1 ? 1 : taken == work2 ? 2 : 3;
        }
    }

    @Arbiter
    public void stackAfter(IIII_Result r) {
        r.r4 = idle.size();
    }
}
