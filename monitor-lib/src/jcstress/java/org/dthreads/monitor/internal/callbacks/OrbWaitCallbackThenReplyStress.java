package org.dthreads.monitor.internal.callbacks;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * {@link CallbackOrbWait}'s waker (issue 18, an ORB's own reply wait with a {@code Lock} and {@code Condition}, as
 * the GlassFish ORB's): a server thread queues a callback for the caller's class while the caller opens its mailbox
 * and enters the ORB's wait ({@link OrbWaitRoom}); once the callback has run, the reply arrives while the caller goes
 * back to the ORB's wait. The callback must run on the caller if its mailbox was open (else the server runs it), the
 * caller must get its reply, and no wait may run out its 5 s bound (a lost wake-up: the callback's signal or the
 * reply's found nobody waiting and nobody rechecked).
 * r1: 1 = the caller got its reply; r2: 1 = a wait ran out its bound; r3: 1 = the callback ran on the caller,
 * 2 = the mailbox was not open yet and the server ran it.
 */
@JCStressTest
@Outcome(id = "1, 0, 1", expect = Expect.ACCEPTABLE, desc = "callback on the caller, then the reply")
@Outcome(id = "1, 0, 2", expect = Expect.ACCEPTABLE_INTERESTING, desc = "queued before the caller waited: run by the server")
@Outcome(id = ".*, 1, .*", expect = Expect.FORBIDDEN, desc = "lost wake-up: a wait ran out its bound")
@Outcome(id = ".*", expect = Expect.FORBIDDEN, desc = "no reply, or the callback lost")
@State
public class OrbWaitCallbackThenReplyStress {
    final OrbWaitRoom room = new OrbWaitRoom();

    @Actor
    public void caller(III_Result r) {
        try {
            r.r1 = room.call() == OrbWaitRoom.REPLY ? 1 : -1;
        } catch (Throwable t) {
            r.r1 = -2;
        }
        r.r2 = room.ranOut ? 1 : 0;
    }

    @Actor
    public void server(III_Result r) {
        try {
            r.r3 = room.callback();
        } catch (Throwable t) {
            r.r3 = -1;
        }
        room.reply();
    }
}
