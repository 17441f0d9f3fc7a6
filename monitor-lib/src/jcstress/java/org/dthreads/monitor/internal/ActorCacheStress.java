package org.dthreads.monitor.internal;

import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@link Actor#current}'s cache by thread id, written racily by the threads that miss it and cleared by the sweep's
 * {@link Actor#pruneDead}: two threads sharing its one entry (a cache of length 1, holding a dead thread's actor
 * at first) each look their actor up twice while the second also prunes. Each must get its own thread's actor, the same both times: never the other thread's, never a
 * partly visible one (two actors: jcstress runs no test with more actors than the machine's 2 CPUs, so the second
 * thread also prunes). r1, r2: 1 if the thread got an actor of its own thread twice, the same.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "each thread got its own actor")
@Outcome(expect = Expect.FORBIDDEN, desc = "a thread got another thread's actor, or two different ones")
@State
public class ActorCacheStress {
    /** A thread that has ended: its entry is the one a miss replaces and the sweep drops. */
    private static final Thread DEAD = ended();

    final Actor[] cache = {new Actor(DEAD)};

    private static Thread ended() {
        Thread t = new Thread(); // no lambda: its body would wait for this class's initialization
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        return t;
    }

    private int lookUp() {
        Actor a = Actor.current(cache);
        Actor b = Actor.current(cache);
        return a == b && a.thread == Thread.currentThread() ? 1 : 0;
    }

    @org.openjdk.jcstress.annotations.Actor
    public void first(II_Result r) {
        r.r1 = lookUp();
    }

    @org.openjdk.jcstress.annotations.Actor
    public void second(II_Result r) {
        Actor.pruneDead(cache); // the sweep's, racing the first thread's look-ups and stores
        r.r2 = lookUp();
    }
}
