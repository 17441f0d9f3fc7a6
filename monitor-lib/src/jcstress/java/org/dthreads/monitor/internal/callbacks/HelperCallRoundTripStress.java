package org.dthreads.monitor.internal.callbacks;

import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.dthreads.ThreadClass;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * One outgoing call's round trip through the shared stack of idle platform helpers, racing both wake-ups: the caller
 * pops the idle helper and hands it the call ({@link CallerHelper#handToIdle}: pop, state, then {@code unpark})
 * while the helper is about to park in {@link CallerHelper#awaitCall}; the helper runs it, goes idle, pushes itself
 * and publishes the reply ({@link CallerHelper#finishCall}) while the caller is about to park on its mailbox
 * ({@link CallbackMailbox#await}). The caller must see the helper's result, and then find the helper idle on the
 * stack for its next call (the helper pushes itself before the reply is published); the helper must be woken by the
 * hand-over, not by its idle deadline (a lost wake-up: the helper would take the call only when its 10 s idle time
 * has passed (long enough that a helper thread starved by the scheduler, as a {@code nice 19} run on a loaded
 * machine is, does not pass for one); a lost wake-up of the caller hangs the test).
 * r1: the result the caller saw (42); r2: 1 = its next hand-over found an idle helper on the stack, 0 = none;
 * r3: 1 = the helper took the call before its idle deadline, 0 = only at it.
 */
@JCStressTest
@Outcome(id = "42, 1, 1", expect = Expect.ACCEPTABLE, desc = "result seen, helper back on the stack, woken by the hand-over")
@Outcome(id = "42, 0, .*", expect = Expect.FORBIDDEN, desc = "the reply came before the helper was back on the stack")
@Outcome(id = ".*, .*, 0", expect = Expect.FORBIDDEN, desc = "lost wake-up: the helper slept until its idle deadline")
@Outcome(id = ".*", expect = Expect.FORBIDDEN, desc = "the caller saw no result or a stale one")
@State
public class HelperCallRoundTripStress {
    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final AtomicInteger NEXT_CLASS = new AtomicInteger();

    final Deque<CallerHelper> idle = new ConcurrentLinkedDeque<>();
    final CallerHelper helper = new CallerHelper(idle, IDLE_NANOS);
    final long threadClass = ThreadClass.of(0x57e5, NEXT_CLASS.incrementAndGet() & 0x7fffffff);

    public HelperCallRoundTripStress() {
        idle.offerFirst(helper); // idle on the stack, as after a call
    }

    @Actor
    public void caller(III_Result r) {
        CallbackMailbox box = CallbackMailbox.open(threadClass);
        try {
            CallbackReply reply = new CallbackReply(Thread.currentThread());
            if (!CallerHelper.handToIdle(idle, () -> reply.record(42, null), reply)) {
                r.r1 = -1;
                return;
            }
            box.await(reply);
            r.r1 = (Integer) reply.outcome();
            r.r2 = CallerHelper.handToIdle(idle, () -> { }, new CallbackReply(null)) ? 1 : 0;
        } catch (Throwable t) {
            r.r1 = -2;
        } finally {
            box.close();
        }
    }

    @Actor
    public void helper(III_Result r) {
        long start = System.nanoTime();
        if (helper.awaitCall()) {
            r.r3 = System.nanoTime() - start < IDLE_NANOS ? 1 : 0;
            helper.runHandedCall();
        } else {
            r.r3 = -1;
        }
    }
}
