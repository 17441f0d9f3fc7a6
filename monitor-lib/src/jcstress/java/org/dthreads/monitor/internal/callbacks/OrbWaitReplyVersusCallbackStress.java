package org.dthreads.monitor.internal.callbacks;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * {@link CallbackOrbWait}'s waker (issue 18, an ORB's own reply wait with a {@code Lock} and {@code Condition}, as
 * the GlassFish ORB's): the reply arrives (a reader) and a callback for the caller's class is queued (a server)
 * while the caller is in the ORB's wait ({@link OrbWaitRoom}), the caller possibly leaving it for the reply as the
 * callback comes. The callback must run exactly once, on the caller if it was queued before the caller's mailbox
 * closed, else given back to the server at once (not after the 5 s queue time); the caller gets its reply; no wait
 * runs out its bound. The reader is the caller's own second actor here (2 CPUs: no third actor).
 * r1: 1 = reply; r2: 1 = a wait ran out its bound; r3: 1 = callback on the caller, 2 = on the server;
 * r4: 1 = the server's offer returned within 1 s.
 */
@JCStressTest
@Outcome(id = "1, 0, 1, 1", expect = Expect.ACCEPTABLE, desc = "the callback ran on the caller before it returned")
@Outcome(id = "1, 0, 2, 1", expect = Expect.ACCEPTABLE, desc = "the caller had returned (or not begun): the server ran it")
@Outcome(id = ".*, 1, .*, .*", expect = Expect.FORBIDDEN, desc = "lost wake-up: a wait ran out its bound")
@Outcome(id = ".*, .*, .*, 0", expect = Expect.FORBIDDEN, desc = "the callback sat queued until the queue time ran out")
@Outcome(id = ".*", expect = Expect.FORBIDDEN, desc = "no reply, or the callback lost")
@State
public class OrbWaitReplyVersusCallbackStress {
    final OrbWaitRoom room = new OrbWaitRoom();

    @Actor
    public void caller(IIII_Result r) {
        try {
            r.r1 = room.call() == OrbWaitRoom.REPLY ? 1 : -1;
        } catch (Throwable t) {
            r.r1 = -2;
        }
        r.r2 = room.ranOut ? 1 : 0;
    }

    @Actor
    public void readerThenServer(IIII_Result r) {
        room.reply();
        long start = System.nanoTime();
        try {
            r.r3 = room.callback();
        } catch (Throwable t) {
            r.r3 = -1;
        }
        r.r4 = System.nanoTime() - start < 1_000_000_000L ? 1 : 0;
    }
}
