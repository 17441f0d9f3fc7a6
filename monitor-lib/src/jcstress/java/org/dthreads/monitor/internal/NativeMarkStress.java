package org.dthreads.monitor.internal;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Two threads mark two objects native at once ({@link NativeMarks}: map entry, then filter bit); the
 * second also reads the first's mark once it sees the first's publication (a volatile flag written
 * after the mark). A mark is never lost to a concurrent one, and a thread that sees the object
 * published after its mark sees the mark.
 */
@JCStressTest
@Outcome(id = {"1, 1", "-1, 1"}, expect = Expect.ACCEPTABLE, desc = "both marks kept; published mark seen (or not yet published)")
@Outcome(expect = Expect.FORBIDDEN, desc = "a mark lost, or a published mark not seen")
@State
public class NativeMarkStress {
    final Object x = new Object();
    final Object y = new Object();
    volatile boolean published;

    @Actor
    public void first() {
        NativeMarks.keepNative(x);
        published = true;
    }

    @Actor
    public void second(II_Result r) {
        NativeMarks.keepNative(y);
        r.r1 = published ? (NativeMarks.isMarked(x) ? 1 : 0) : -1;
    }

    @Arbiter
    public void check(II_Result r) {
        r.r2 = NativeMarks.isMarked(x) && NativeMarks.isMarked(y) && MonitorModes.mode(x) == MonitorModes.NATIVE ? 1 : 0;
    }
}
