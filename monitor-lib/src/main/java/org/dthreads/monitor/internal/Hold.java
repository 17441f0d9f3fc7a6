package org.dthreads.monitor.internal;

import org.dthreads.ThreadClass;

/**
 * Who holds a monitor: an equivalence class, and the actor (physical thread or remote lease) that is
 * currently acting for it. Immutable, so one volatile write of {@link Monitor#owner} publishes both at once
 * and a reader can never pair a class with a stale actor.
 */
final class Hold {
    final Actor actor;
    final long threadClass;

    Hold(Actor actor, long threadClass) {
        this.actor = actor;
        this.threadClass = threadClass;
    }

    boolean isActive(Actor who, long threadClass) {
        return actor == who && this.threadClass == threadClass;
    }

    @Override
    public String toString() {
        return ThreadClass.format(threadClass) + " via " + actor;
    }
}
