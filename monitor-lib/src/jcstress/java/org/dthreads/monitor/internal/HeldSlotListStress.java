package org.dthreads.monitor.internal;

import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A dump reads a thread's list of held slot monitors ({@link HeldSlotMonitors}) while the thread releases
 * monitors below and above one it keeps holding (non-LIFO: holes, a trimmed top), fills the holes with new
 * monitors and grows the array past its capacity. The monitor held since before the read ({@code kept}, in the
 * middle of the list) must be seen, exactly once, and nothing but the list's monitors. r1: times {@code kept}
 * was seen; r2: 1 if every monitor seen is one of the test's, else 0.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "the monitor held throughout is seen once")
@Outcome(expect = Expect.FORBIDDEN, desc = "a held monitor missed or seen twice, or a foreign one seen")
@State
public class HeldSlotListStress {
    final HeldSlotMonitors list = new HeldSlotMonitors(Thread.currentThread(), 2);
    final Monitor below = new Monitor(new Object());
    final Monitor kept = new Monitor(new Object());
    final Monitor above = new Monitor(new Object());
    final Monitor[] later = {new Monitor(new Object()), new Monitor(new Object()), new Monitor(new Object()),
            new Monitor(new Object())};

    {
        list.push(below);
        list.push(kept);
        list.push(above); // grown to 4: [below, kept, above, -]
    }

    @org.openjdk.jcstress.annotations.Actor
    public void holder() {
        list.remove(below); // a hole under kept
        list.remove(above); // the top, trimmed down to kept
        list.push(later[0]); // fills the hole
        list.push(later[1]);
        list.push(later[2]);
        list.push(later[3]); // grows to 8
    }

    @org.openjdk.jcstress.annotations.Actor
    public void dump(II_Result r) {
        int[] seen = {0, 1};
        list.forEach(m -> {
            if (m == kept) {
                seen[0]++;
            } else if (!isOurs(m)) {
                seen[1] = 0;
            }
        });
        r.r1 = seen[0];
        r.r2 = seen[1];
    }

    private boolean isOurs(Object m) {
        if (m == below || m == above) {
            return true;
        }
        for (Monitor l : later) {
            if (m == l) {
                return true;
            }
        }
        return false;
    }
}
