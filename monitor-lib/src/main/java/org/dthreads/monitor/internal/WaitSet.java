package org.dthreads.monitor.internal;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The wait set of one emulated monitor: the {@link WaitNode}s of classes in {@code Object.wait} on it, in
 * arrival order, and notify. A base class of {@link Monitor} (see {@link EntrantQueue}: one object, no
 * indirection); the wait itself (release the whole depth, park, re-acquire) is {@link MonitorWaits#waitOn}.
 *
 * <h2>What guards what</h2>
 * {@link #waitSet} and each node's {@code state} (WAITING -> NOTIFIED by a notifier, or WAITING -> CANCELLED
 * by the waiter on timeout or interrupt) are guarded by the queue lock (this object's native monitor, as for
 * the entrant queue): exactly one of the notifier and the waiter moves a node out of WAITING, so a notify is
 * either delivered to a waiter that returns notified or not taken at all. A wait that fails with an Error
 * while its stack is exhausted marks its node CANCELLED without the lock and leaves it in the set; notifies
 * skip and drop such nodes, and diagnostics do not list them. {@link #waiting} is a volatile
 * mirror of the set's size written under the lock, read without it by releases (whether the key must stay
 * pinned) and dumps. {@code unfinished} (every node from {@link #addWaiter} to {@link #waitDone}, also
 * after a notify or timeout took it out of the set) and {@code awaiting} (its size) are guarded by the queue
 * lock. A node's saved depth and activations are written by the waiter under the queue lock as it releases
 * the monitor, read back by itself when it re-acquires it, and cleared under the lock by {@link #waitDone};
 * {@link #isFrozenInWaitSetLocked} reads them under the lock for every unfinished node, so a waiter's saved
 * levels count as frozen from its release until it holds the monitor again with them restored.
 *
 * <h2>Ordering</h2>
 * A node is added under the lock before the waiter releases the monitor (a volatile write of the owner), so
 * a notifier that acquires the monitor afterwards finds it. The notifier unparks the waiter after setting
 * {@code state} under the lock; the waiter re-reads {@code state} (volatile) after every park.
 */
abstract class WaitSet extends EntrantQueue {
    volatile int waiting;
    private ArrayDeque<WaitNode> waitSet;
    /** Threads between registering a wait and re-acquiring after it (retirement waits for zero); under the queue lock. */
    int awaiting;
    /**
     * The nodes of those threads (in the wait set or not: notified or timed out, re-acquiring), under the queue
     * lock: their saved activations are frozen levels until {@link #waitDone} (issue 15 §3).
     */
    private ArrayDeque<WaitNode> unfinished;

    /** Adds {@code node} to the wait set (before the waiter releases the monitor). */
    final void addWaiter(WaitNode node) {
        synchronized (this) {
            if (waitSet == null) {
                waitSet = new ArrayDeque<>();
            }
            waitSet.addLast(node);
            waiting = waiting + 1;
            if (unfinished == null) {
                unfinished = new ArrayDeque<>();
            }
            unfinished.addLast(node);
            awaiting++;
        }
    }

    /**
     * The waiter's wait ended (timeout, interrupt or notify): takes it out of the set unless a notify did.
     * Returns whether it was notified (then the notify is its own and must not be lost).
     */
    final boolean leaveWaitSet(WaitNode node) {
        synchronized (this) {
            if (node.state == WaitNode.WAITING) {
                node.state = WaitNode.CANCELLED;
                waitSet.remove(node);
                waiting = waiting - 1;
                return false;
            }
            return true;
        }
    }

    /**
     * Ends what {@link #addWaiter} began, once the waiter holds the monitor again (its saved activations are
     * restored: from now on they are the monitor's own).
     */
    final void waitDone(WaitNode node) {
        synchronized (this) {
            unfinished.remove(node);
            node.savedActivations = null;
            awaiting--;
        }
    }

    /** Notifies the longest waiter; returns whether there was one. */
    final boolean notifyOne() {
        synchronized (this) {
            for (WaitNode w; waitSet != null && (w = waitSet.pollFirst()) != null; ) {
                waiting = waiting - 1;
                if (w.state == WaitNode.CANCELLED) {
                    continue; // abandoned by a wait that failed with an Error (see MonitorWaits.waitOn)
                }
                w.state = WaitNode.NOTIFIED;
                w.notifier = Thread.currentThread();
                LockSupport.unpark(w.thread);
                return true;
            }
            return false;
        }
    }

    final void notifyEvery() {
        synchronized (this) {
            if (waitSet == null) {
                return;
            }
            for (WaitNode w; (w = waitSet.pollFirst()) != null; ) {
                w.state = WaitNode.NOTIFIED;
                w.notifier = Thread.currentThread();
                waiting = waiting - 1;
                LockSupport.unpark(w.thread);
            }
        }
    }

    /**
     * Whether a wait of another actor that has not re-acquired yet saved levels of {@code me}: still waiting,
     * or notified or timed out and not yet back (caller holds the queue lock).
     */
    final boolean isFrozenInWaitSetLocked(Actor me) {
        if (unfinished != null) {
            for (WaitNode w : unfinished) {
                if (w.actor != me && w.savedActivations != null && w.savedActivations.contains(me)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The waiting classes, in order. Caller holds the queue lock (a dump). */
    final long[] waiterClassesLocked() {
        long[] waiters = new long[waitSet == null ? 0 : waitSet.size()];
        int i = 0;
        if (waitSet != null) {
            for (WaitNode w : waitSet) {
                waiters[i++] = w.threadClass;
            }
        }
        return waiters;
    }

    /** Classes waiting here, for tests and interrupt routing. */
    final List<WaitNode> waitersSnapshot() {
        synchronized (this) {
            return List.of(waitersLocked());
        }
    }

    /** The waiting nodes, in arrival order (a copy). Caller holds the queue lock (diagnostics). */
    final WaitNode[] waitersLocked() {
        if (waitSet == null) {
            return new WaitNode[0];
        }
        // a node abandoned by a wait that failed with an Error stays until a notify drops it: not a waiter
        return waitSet.stream().filter(w -> w.state != WaitNode.CANCELLED).toArray(WaitNode[]::new);
    }
}
