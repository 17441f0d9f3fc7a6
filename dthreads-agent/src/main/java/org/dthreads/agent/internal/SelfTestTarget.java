package org.dthreads.agent.internal;

/** Rewritten once at start-up by {@link Installer#selfTest()}: proves the rewriter works in this agent jar. */
final class SelfTestTarget {
    private int value;

    synchronized int next() {
        return ++value;
    }
}
