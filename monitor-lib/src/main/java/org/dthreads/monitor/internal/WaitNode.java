package org.dthreads.monitor.internal;

/**
 * One class's pending {@code wait()} on one monitor. {@link #state} moves from WAITING to NOTIFIED (by a
 * notifier) or CANCELLED (by the waiter on timeout or interrupt) exactly once, always under the monitor's
 * queue lock, so a notify either reaches a node still waiting or skips to the next one: none is lost
 * (JLS 17.2.4). The saved depth and activations are written by the waiter under the queue lock as it
 * releases the monitor, read back by it after it re-acquires, and cleared under the lock by
 * {@code WaitSet.waitDone}; other threads (orphans deciding whether their levels are frozen) read them under
 * the queue lock only.
 */
final class WaitNode {
    static final int WAITING = 0;
    static final int NOTIFIED = 1;
    static final int CANCELLED = 2;

    final Actor actor;
    final long threadClass;
    final Thread thread;
    volatile int state;
    /**
     * The waiter acts for {@link #threadClass} on behalf of the network (a lease, or a thread bound to the
     * class: it serves a call chain), not as the class's home thread: only such a wait may be interrupted by a
     * remote INTERRUPT. Written by the waiter before the node is published in {@code WAITS_BY_CLASS}.
     */
    boolean servesChain;
    int savedDepth;
    Activation savedActivations;
    /** The thread whose notify moved {@link #state} to NOTIFIED (for the JFR wait event); under the queue lock. */
    Thread notifier;

    WaitNode(Actor actor, long threadClass, Thread thread) {
        this.actor = actor;
        this.threadClass = threadClass;
        this.thread = thread;
    }
}
