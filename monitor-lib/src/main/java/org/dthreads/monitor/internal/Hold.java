package org.dthreads.monitor.internal;

import org.dthreads.ThreadClass;

/**
 * Who holds a monitor: an equivalence class, and the actor (physical thread or remote lease) that is
 * currently acting for it. Immutable, so one volatile write of {@link Monitor#owner} publishes both at once
 * and a reader can never pair a class with a stale actor.
 * <p>{@link #thin} interns this hold's {@link ThinLock} values. Only the hold's own thread makes them (its
 * thin enters and exits); others only read the values they find in slots, whose fields are final.
 */
final class Hold {
    final Actor actor;
    final long threadClass;
    /** {@code thin[d - 1]} is the value of a slot this hold holds {@code d} levels deep; made on first use. */
    private ThinLock[] thin;

    Hold(Actor actor, long threadClass) {
        this.actor = actor;
        this.threadClass = threadClass;
    }

    /** The interned thin value "held by this hold, {@code depth} levels deep", 1 to {@link ThinLock#MAX_DEPTH}. */
    ThinLock thin(int depth) {
        ThinLock[] levels = thin;
        if (levels == null) {
            levels = new ThinLock[ThinLock.MAX_DEPTH];
            thin = levels;
        }
        ThinLock t = levels[depth - 1];
        if (t == null) {
            t = new ThinLock(this, depth);
            levels[depth - 1] = t;
        }
        return t;
    }

    boolean isActive(Actor who, long threadClass) {
        return actor == who && this.threadClass == threadClass;
    }

    @Override
    public String toString() {
        return ThreadClass.format(threadClass) + " via " + actor;
    }
}
