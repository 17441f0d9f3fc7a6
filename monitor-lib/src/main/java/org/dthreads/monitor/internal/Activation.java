package org.dthreads.monitor.internal;

/**
 * A hold that another actor of the same class took over while the holder was suspended (blocked in an
 * outgoing remote call, or a remote lease). The actor that took over holds the levels above
 * {@link #baseDepth}; when the depth falls back to {@code baseDepth} the suspended hold is restored.
 * Immutable; a stack of them hangs off {@link Monitor} (or a {@link WaitNode} while the class waits).
 */
final class Activation {
    final Hold suspended;
    final int baseDepth;
    final Activation next;

    Activation(Hold suspended, int baseDepth, Activation next) {
        this.suspended = suspended;
        this.baseDepth = baseDepth;
        this.next = next;
    }

    boolean contains(Actor actor) {
        for (Activation a = this; a != null; a = a.next) {
            if (a.suspended.actor == actor) {
                return true;
            }
        }
        return false;
    }
}
