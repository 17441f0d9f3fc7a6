package org.dthreads.monitor.internal;

import org.dthreads.ThreadClass;

import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Issue 15 §3: a remote holder re-enters under its lease ({@code remoteEnter} found the lease holding and
 * not expired, then enters through it) while a contender finds the lease expired, revokes it, enters and
 * exits once. The re-entry must count on the lease's own hold (then the revocation drops it) or find the
 * lease revoked and not enter: it must never add a level to the contender's hold (which one exit would then
 * leave held for ever) nor make a revoked lease hold the monitor. Result: the re-entry succeeded (1/0), who
 * holds the monitor at the end (0 nobody, 1 the revoked lease, 2 the contender).
 */
@JCStressTest
@Outcome(id = "1, 0", expect = Expect.ACCEPTABLE, desc = "re-entered before the revocation, which dropped every level")
@Outcome(id = "0, 0", expect = Expect.ACCEPTABLE, desc = "revoked first; the re-entry refused")
@Outcome(expect = Expect.FORBIDDEN, desc = "a level added to the contender's hold, or a revoked lease holds")
@State
public class LeaseReentryVersusRevokeStress {
    final Object key = new Object();
    final Monitor m = new Monitor(key);
    final LeaseActor lease = new LeaseActor(1L, LeaseExitVersusRevokeStress.REMOTE, "peer", 0L);
    final Actor contender = new Actor(null);
    int reentered;

    public LeaseReentryVersusRevokeStress() {
        if (!m.tryEnterFast(lease, LeaseExitVersusRevokeStress.REMOTE, key)) {
            throw new IllegalStateException("a fresh monitor is free");
        }
        lease.start();
    }

    @org.openjdk.jcstress.annotations.Actor
    public void holderReenters() {
        reentered = m.enterSlow(lease, LeaseExitVersusRevokeStress.REMOTE, key) ? 1 : 0;
    }

    @org.openjdk.jcstress.annotations.Actor
    public void contenderRevokesEntersAndExits() {
        m.revokeIfExpired(lease);
        if (m.tryEnterFast(contender, LeaseExitVersusRevokeStress.LOCAL, key)) {
            m.exit(contender, LeaseExitVersusRevokeStress.LOCAL);
        }
    }

    @Arbiter
    public void check(II_Result r) {
        r.r1 = reentered;
        Hold h = m.getOwnerVolatile();
        r.r2 = h == null ? 0 : h.actor == lease ? 1 : 2;
    }
}
