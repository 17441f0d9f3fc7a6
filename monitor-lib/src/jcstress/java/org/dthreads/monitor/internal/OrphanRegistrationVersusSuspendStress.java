package org.dthreads.monitor.internal;

import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.dthreads.ThreadClass;

import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Issue 15 §3.2b: an orphan (its class holds the monitor through a runnable actor H) parks until H suspends in
 * an outgoing call. H, beginning the call, wakes the orphans registered for its class in
 * {@code ORPHANS_BY_CLASS}. The orphan registers and <em>then</em> looks at H again ({@code MonitorContention.enterSlow}):
 * one of the two sees the other, so the orphan takes over at once or is woken. Result: the orphan's look saw H
 * suspended (1/0), H's scan found the orphan registered (1/0). (0, 0) would be a lost wake-up. The old order
 * (look, then register) allows it: {@link Old}.
 */
public class OrphanRegistrationVersusSuspendStress {
    private static final AtomicInteger CLASSES = new AtomicInteger();

    static long freshClass() {
        return ThreadClass.of(0x5257, 1 + (CLASSES.getAndIncrement() & 0x3fff_ffff));
    }

    static int registered(long cls, Monitor m) {
        Set<Monitor> set = WaitsAndOrphans.ORPHANS_BY_CLASS.get(cls);
        return set != null && set.contains(m) ? 1 : 0;
    }

    @JCStressTest
    @Outcome(id = {"1, 1", "1, 0", "0, 1"}, expect = Expect.ACCEPTABLE, desc = "one sees the other")
    @Outcome(id = "0, 0", expect = Expect.FORBIDDEN, desc = "lost wake-up: the orphan parks, nobody wakes it")
    @State
    public static class RegisterThenLook {
        final long cls = freshClass();
        final Monitor m = new Monitor(new Object());
        final Actor holder = new Actor(null);

        @org.openjdk.jcstress.annotations.Actor
        public void orphan(II_Result r) {
            WaitsAndOrphans.orphanBlocked(Actor.current(), cls, m); // the runtime's registration (logs once a minute)
            r.r1 = holder.isSuspended() ? 1 : 0;
        }

        @org.openjdk.jcstress.annotations.Actor
        public void holderSuspends(II_Result r) {
            holder.beginOutgoingCall(cls);
            r.r2 = registered(cls, m);
        }

        @org.openjdk.jcstress.annotations.Arbiter
        public void cleanUp(II_Result r) {
            WaitsAndOrphans.ORPHANS_BY_CLASS.remove(cls);
        }
    }

    /** The order before the fix: the orphan looks, then registers. */
    @JCStressTest
    @Outcome(id = {"1, 1", "1, 0", "0, 1"}, expect = Expect.ACCEPTABLE, desc = "one sees the other")
    @Outcome(id = "0, 0", expect = Expect.ACCEPTABLE_INTERESTING, desc = "lost wake-up (why the order changed)")
    @State
    public static class Old {
        final long cls = freshClass();
        final Monitor m = new Monitor(new Object());
        final Actor holder = new Actor(null);

        @org.openjdk.jcstress.annotations.Actor
        public void orphan(II_Result r) {
            r.r1 = holder.isSuspended() ? 1 : 0;
            WaitsAndOrphans.orphanBlocked(Actor.current(), cls, m); // the runtime's registration (logs once a minute)
        }

        @org.openjdk.jcstress.annotations.Actor
        public void holderSuspends(II_Result r) {
            holder.beginOutgoingCall(cls);
            r.r2 = registered(cls, m);
        }

        @org.openjdk.jcstress.annotations.Arbiter
        public void cleanUp(II_Result r) {
            WaitsAndOrphans.ORPHANS_BY_CLASS.remove(cls);
        }
    }
}
