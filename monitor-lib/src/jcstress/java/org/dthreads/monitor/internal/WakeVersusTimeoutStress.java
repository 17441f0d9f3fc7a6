package org.dthreads.monitor.internal;

import org.dthreads.internal.KernelLink;

import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A waiter with a tiny timeout races a notifier (JLS 17.2.4): if the notify found the waiter in the wait
 * set, the waiter must report it was notified; a waiter that timed out must not have swallowed a notify.
 * r1: 0 = notified, 2 = timed out (MonitorWaits.waitOn); r2: 1 = the notify reached a waiter, 0 = wait set empty.
 */
@JCStressTest
@Outcome(id = "0, 1", expect = Expect.ACCEPTABLE, desc = "notified while waiting")
@Outcome(id = "2, 0", expect = Expect.ACCEPTABLE, desc = "timed out; the notify came before or after the wait")
@Outcome(id = "2, 1", expect = Expect.FORBIDDEN, desc = "lost notify: delivered to a waiter that reports a timeout")
@Outcome(id = "0, 0", expect = Expect.FORBIDDEN, desc = "notified by nobody")
@State
public class WakeVersusTimeoutStress {
    final Object lock = new Object();
    final Monitor monitor = MonitorRuntime.TABLE.getOrCreate(lock);

    @org.openjdk.jcstress.annotations.Actor
    public void waiter(II_Result r) {
        Actor me = Actor.current();
        long cls = KernelLink.currentClass();
        if (!monitor.tryEnterFast(me, cls, lock)) {
            monitor.enterSlow(me, cls, lock);
        }
        int begun = monitor.beginOwnerOperation(me, cls);
        int outcome = monitor.waitOn(me, cls, lock, 20_000L, begun); // 20 µs
        r.r1 = outcome == Monitor.NOTIFIED ? 0 : outcome == Monitor.TIMED_OUT ? 2 : 1;
        monitor.exit(me, cls);
    }

    @org.openjdk.jcstress.annotations.Actor
    public void notifier(II_Result r) {
        Actor me = Actor.current();
        long cls = KernelLink.currentClass();
        if (!monitor.tryEnterFast(me, cls, lock)) {
            monitor.enterSlow(me, cls, lock);
        }
        r.r2 = monitor.notifyOne() ? 1 : 0;
        monitor.exit(me, cls);
    }
}
