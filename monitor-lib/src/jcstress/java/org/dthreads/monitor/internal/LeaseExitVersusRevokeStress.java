package org.dthreads.monitor.internal;

import org.dthreads.ThreadClass;

import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Issue 15 §3: a remote holder's exit (the server thread acting for its lease, after {@code remoteExit}
 * found the lease valid) races with a contender that finds the lease expired, revokes it and takes the
 * monitor. The exit must either release the lease's own level before the revocation or find the lease no
 * longer holding: it must never free the contender's hold. Result: the lease's exit succeeded (1/0), the
 * contender entered (1/0), the contender still owns the monitor afterwards (1/0).
 */
@JCStressTest
@Outcome(id = "1, 1, 1", expect = Expect.ACCEPTABLE, desc = "the lease exited first; the contender holds")
@Outcome(id = "0, 1, 1", expect = Expect.ACCEPTABLE, desc = "revoked first; the late exit refused")
@Outcome(expect = Expect.FORBIDDEN, desc = "the lease's exit freed the contender's hold")
@State
public class LeaseExitVersusRevokeStress {
    static final long REMOTE = ThreadClass.of(0x5253, 1);
    static final long LOCAL = ThreadClass.of(0x5253, 2);
    final Object key = new Object();
    final Monitor m = new Monitor(key);
    final LeaseActor lease = new LeaseActor(1L, REMOTE, "peer", 0L); // expires as soon as granted
    final Actor contender = new Actor(null);
    int exited;
    int entered;

    public LeaseExitVersusRevokeStress() {
        if (!m.tryEnterFast(lease, REMOTE, key)) {
            throw new IllegalStateException("a fresh monitor is free");
        }
        lease.start();
    }

    @org.openjdk.jcstress.annotations.Actor
    public void holderExits() {
        exited = m.exit(lease, REMOTE) ? 1 : 0;
    }

    @org.openjdk.jcstress.annotations.Actor
    public void contenderRevokesAndEnters() {
        m.revokeIfExpired(lease);
        entered = m.tryEnterFast(contender, LOCAL, key) ? 1 : 0;
    }

    @Arbiter
    public void check(III_Result r) {
        r.r1 = exited;
        r.r2 = entered;
        Hold h = m.getOwnerVolatile();
        r.r3 = h != null && h.actor == contender ? 1 : 0;
    }
}
