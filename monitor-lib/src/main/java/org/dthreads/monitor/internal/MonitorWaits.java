package org.dthreads.monitor.internal;

import java.util.concurrent.locks.LockSupport;
import org.dthreads.monitor.internal.jfr.MonitorEvents;

/**
 * {@code Object.wait} on one {@link Monitor}: register in its {@link WaitSet}, release the whole depth (and any
 * activations of the class), park until notified, timed out or interrupted, then re-acquire from free and
 * restore what was released. Static methods over the monitor's state; entered through {@link Monitor#waitOn}
 * after {@link Monitor#beginOwnerOperation} made the caller the active actor.
 *
 * <h2>What it reads and writes, and what guards it</h2>
 * The release writes the node's saved depth and activations and clears the monitor's activations under the
 * queue lock, then frees the owner (volatile write), all as the active actor; the re-acquire takes the owner by
 * CAS from free and only then writes {@code depth}, {@code activations} and {@code pinnedKey} back (plain,
 * through the monitor's {@code set...Plain} accessors: owner-confined, as in {@link Monitor}). The node's
 * {@code state} is the wait set's (see {@link WaitSet}, "What guards what").
 *
 * <h2>Ordering</h2>
 * The node is added before the owner is released, so a notifier that acquires afterwards finds it; the waiter
 * re-reads the node's {@code state} (volatile) after every park. From registration to {@link WaitSet#waitDone}
 * the saved activations count as frozen levels, so no actor of the class acts on them meanwhile (issue 15 §3).
 */
final class MonitorWaits {
    private MonitorWaits() {
    }

    /** {@link Monitor#waitOn}. */
    static int waitOn(Monitor m, Actor me, long cls, Object key, long timeoutNanos, int begun) {
        Object jfr = MonitorEvents.waitBegins();
        Thread self = Thread.currentThread();
        WaitNode node = new WaitNode(me, cls, self);
        m.addWaiter(node); // counts the wait in awaiting until waitDone
        // From here on an Error (a stack overflow, an OOM) must neither leave the node for a later notify
        // to be spent on nor return without the monitor: the finally below undoes both.
        boolean released = false;
        boolean interrupted = false;
        boolean notified = false;
        boolean interruptedWhileReacquiring = false;
        try {
            WaitsAndOrphans.waitStarted(node);
            released = release(m, me, cls, node);
            if (released) {
                if (m.queuedEntrants > 0) {
                    m.wakeEntrants(false);
                }
                // an interrupt kept for the class while we were registering: as if it came during the wait
                interrupted = InterruptRouting.takeClassInterrupt(cls);
                interrupted = parkUntilSignalled(m, node, timeoutNanos, interrupted);
            }
        } finally {
            try {
                notified = m.leaveWaitSet(node);
                WaitsAndOrphans.waitEnded(node);
            } catch (Throwable t) {
                // the stack is still exhausted here: no call. Notifies skip and drop an abandoned node.
                node.state = WaitNode.CANCELLED;
                throw t;
            } finally {
                if (released) {
                    interruptedWhileReacquiring = reacquire(m, me, cls, key, node);
                }
                // skipped only if the re-acquire failed: the monitor is then never retired. Until here the
                // node's saved activations count as frozen levels (a notified or timed-out waiter keeps them)
                m.waitDone(node);
            }
        }
        if (!released) {
            return Monitor.NOT_OWNER; // a lease revoked since the caller's check: it held nothing to wait with
        }
        if (begun == Monitor.TOOK_OVER) {
            m.handBackIfEmpty(me);
        }
        JfrHooks.waited(jfr, m, key, node, timeoutNanos, notified, interrupted);
        if (interrupted && !notified) {
            if (interruptedWhileReacquiring) {
                self.interrupt();
            }
            return Monitor.INTERRUPTED;
        }
        if (interrupted || interruptedWhileReacquiring) {
            self.interrupt(); // notified and interrupted: return normally, interrupt still pending
        }
        return notified ? Monitor.NOTIFIED : Monitor.TIMED_OUT;
    }

    /**
     * A wait's release of the whole depth, under the queue lock. For a lease the check that it still holds and
     * the release are one step, as in {@link MonitorLeases#exitLease}: a lease revoked after the caller's check
     * (its expiry was read before the wait was counted, see {@link LeaseActor#beginWait}) releases nothing, and
     * never the hold of the contender that took the monitor (issue 15 §3). Returns whether it released.
     */
    private static boolean release(Monitor m, Actor me, long cls, WaitNode node) {
        synchronized (m) {
            if (me instanceof LeaseActor lease) {
                Hold h = m.getOwnerVolatile();
                if (lease.isRevoked() || h == null || !h.isActive(me, cls)) {
                    return false;
                }
            }
            node.savedDepth = m.getDepthPlain();
            node.savedActivations = m.getActivationsPlain();
            m.setActivationsPlain(null);
            // pinnedKey stays: waiting > 0
            m.setOwnerVolatile(null);
            return true;
        }
    }

    /** Parks until notified, timed out or interrupted; returns whether interrupted. */
    private static boolean parkUntilSignalled(Monitor m, WaitNode node, long timeoutNanos, boolean interrupted) {
        boolean timed = timeoutNanos > 0;
        long deadline = timed ? System.nanoTime() + timeoutNanos : 0L;
        while (!interrupted && node.state == WaitNode.WAITING) {
            if (timed) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0L) {
                    break;
                }
                LockSupport.parkNanos(m, remaining);
            } else {
                LockSupport.park(m);
            }
            if (Thread.interrupted()) {
                return true;
            }
        }
        return interrupted;
    }

    /** Takes the monitor back from free and restores the saved depth and activations. */
    private static boolean reacquire(Monitor m, Actor me, long cls, Object key, WaitNode saved) {
        Entrant node = null;
        boolean interrupted = false;
        try {
            for (;;) {
                if (m.getOwnerVolatile() == null && m.casOwner(null, me.holdFor(cls))) {
                    m.setDepthPlain(saved.savedDepth);
                    m.setActivationsPlain(saved.savedActivations);
                    m.setPinnedKeyPlain(key);
                    return interrupted;
                }
                if (node == null) {
                    node = m.enqueue(Thread.currentThread(), cls);
                    continue;
                }
                MonitorContention.parkForEntry(m, me);
                node.signalled = false;
                if (Thread.interrupted()) {
                    interrupted = true;
                }
            }
        } finally {
            if (node != null) {
                m.dequeue(node);
            }
        }
    }
}
