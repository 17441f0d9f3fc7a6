package org.dthreads.monitor.internal;

import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Issue 15 §3: a remote holder's wait (the server thread acting for its lease, after {@code remoteWait} found
 * the lease valid and counted the wait) races with a contender that finds the lease expired, revokes it and
 * takes the monitor. The wait must either release the lease's own levels (then the lease cannot be revoked:
 * its wait is pending) or find that the lease no longer holds: it must never release the contender's hold.
 * Result: the contender entered (1/0), the contender's exit found its own hold (1/0; -1 if it did not enter).
 */
@JCStressTest
@Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "revoked first, or the wait released its own levels first")
@Outcome(id = "0, -1", expect = Expect.ACCEPTABLE, desc = "the wait counted first: nothing to revoke, the lease holds")
@Outcome(expect = Expect.FORBIDDEN, desc = "the wait released the contender's hold")
@State
public class LeaseWaitVersusRevokeStress {
    final Object key = new Object();
    final Monitor m = new Monitor(key);
    final LeaseActor lease = new LeaseActor(1L, LeaseExitVersusRevokeStress.REMOTE, "peer", 0L); // expired at once
    final Actor contender = new Actor(null);
    int entered;
    int exited;

    public LeaseWaitVersusRevokeStress() {
        if (!m.tryEnterFast(lease, LeaseExitVersusRevokeStress.REMOTE, key)) {
            throw new IllegalStateException("a fresh monitor is free");
        }
        lease.start();
    }

    /** What {@code RemoteLeases.remoteWait} does after its validity check: count the wait, then wait briefly. */
    @org.openjdk.jcstress.annotations.Actor
    public void holderWaits() {
        long cls = LeaseExitVersusRevokeStress.REMOTE;
        lease.beginWait();
        try {
            int begun = m.beginOwnerOperation(lease, cls);
            if (begun != Monitor.NOT_OWNER) {
                m.waitOn(lease, cls, key, 1_000L, begun); // 1 µs, then re-acquires once the contender left
            }
        } finally {
            lease.endWait();
        }
    }

    @org.openjdk.jcstress.annotations.Actor
    public void contenderRevokesEntersAndExits() {
        long cls = LeaseExitVersusRevokeStress.LOCAL;
        m.revokeIfExpired(lease);
        if (m.tryEnterFast(contender, cls, key)) {
            entered = 1;
            exited = m.exit(contender, cls) ? 1 : 0;
        } else {
            exited = -1;
        }
    }

    @org.openjdk.jcstress.annotations.Arbiter
    public void check(II_Result r) {
        r.r1 = entered;
        r.r2 = exited;
    }
}
