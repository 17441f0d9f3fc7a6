package org.dthreads.monitor.internal;

import static org.dthreads.monitor.internal.MonitorRuntime.LOG;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.dthreads.ThreadClass;
import org.dthreads.internal.KernelLink;

/**
 * The per-class registries that interrupt routing reads ({@link InterruptRouting}, {@link InterruptForwarding}): the
 * pending emulated waits of each class at this site ({@link #WAITS_BY_CLASS}: where an interrupt of the class goes),
 * and the monitors where orphans of each class park ({@link #ORPHANS_BY_CLASS}: woken when a thread of the class
 * suspends, see {@link Monitor}, "Several physical threads of one class").
 *
 * <h2>What guards what</h2>
 * Concurrent maps with concurrent key sets; no lock of ours is held while they are used. A set is changed only
 * inside the map's {@code compute}/{@code computeIfPresent} for its key (atomic per key: the map locks the key's
 * bin), and dropped there once empty, so an add never lands in a set that a concurrent removal has just dropped
 * (issue 15 §3). Readers iterate a set they got without the bin lock (weakly consistent).
 *
 * <h2>Ordering</h2>
 * A wait registers before it releases the monitor and leaves after its park ({@link MonitorWaits}). An orphan
 * registers and then looks at the holder again ({@link MonitorContention}); a thread beginning an outgoing call
 * writes {@code outgoingCalls} (volatile) and then reads {@link #ORPHANS_BY_CLASS}: one of the two sees the other
 * (see {@link InterruptRouting}, "Ordering").
 */
final class WaitsAndOrphans {
    /** Pending emulated waits by class, for interrupt routing. */
    static final Map<Long, Set<WaitNode>> WAITS_BY_CLASS = new ConcurrentHashMap<>();
    /** Monitors where orphans of a class are parked, woken when a thread of the class suspends. */
    static final Map<Long, Set<Monitor>> ORPHANS_BY_CLASS = new ConcurrentHashMap<>();

    private WaitsAndOrphans() {
    }

    /**
     * Adds to the set of a key, creating it; one atomic step of the map's key (see the design comment). A
     * class rather than a lambda, and linked when this class is initialized (below; {@link InterruptRouting}
     * initializes this class with its own), not by the first wait, which may be at the end of a stack.
     */
    private static final class AddTo<E> implements BiFunction<Long, Set<E>, Set<E>> {
        private final E element;

        AddTo(E element) {
            this.element = element;
        }

        @Override
        public Set<E> apply(Long cls, Set<E> set) {
            Set<E> s = set == null ? ConcurrentHashMap.newKeySet() : set;
            s.add(element);
            return s;
        }
    }

    /** Removes from the set of a key, and the key with its set once empty; one atomic step (see AddTo). */
    private static final class RemoveFrom<E> implements BiFunction<Long, Set<E>, Set<E>> {
        private final E element;

        RemoveFrom(E element) {
            this.element = element;
        }

        @Override
        public Set<E> apply(Long cls, Set<E> set) {
            if (element != null) {
                set.remove(element);
            } else {
                set.removeIf(m -> m instanceof Monitor monitor && !monitor.isBusy());
            }
            return set.isEmpty() ? null : set;
        }
    }

    static { // links both paths now (a concurrent set takes no null element)
        Set<Object> probe = new AddTo<Object>(Boolean.TRUE).apply(0L, null);
        new RemoveFrom<Object>(Boolean.TRUE).apply(0L, probe);
        new RemoveFrom<Object>(null).apply(0L, new AddTo<Object>(Boolean.TRUE).apply(0L, null));
    }

    static void waitStarted(WaitNode node) {
        node.servesChain = node.actor instanceof LeaseActor || KernelLink.boundClass() == node.threadClass;
        WAITS_BY_CLASS.compute(node.threadClass, new AddTo<>(node));
    }

    static void waitEnded(WaitNode node) {
        WAITS_BY_CLASS.computeIfPresent(node.threadClass, new RemoveFrom<>(node));
    }

    static void orphanBlocked(Actor me, long cls, Monitor m) {
        ORPHANS_BY_CLASS.compute(cls, new AddTo<>(m));
        LOG.warn("orphan-blocked", "dthreads: " + me + " of class " + ThreadClass.format(cls)
                + " blocks on a monitor its class holds through another thread (a nested activation still running"
                + " after this thread's remote call ended, e.g. on a timeout); it proceeds when that activation"
                + " unwinds. See docs/remote-monitors.md, \"Orphans\".");
    }

    /** Drops the class's monitors where nobody is busy any more (a null element: remove the idle ones). */
    static void orphanUnblocked(Actor me, long cls) {
        ORPHANS_BY_CLASS.computeIfPresent(cls, new RemoveFrom<Monitor>(null));
    }

    /** Interrupts a pending emulated wait of {@code cls} at this site (not {@code except}'s); true if there was one. */
    static boolean interruptWaitOf(long cls, Thread except) {
        Set<WaitNode> waits = WAITS_BY_CLASS.get(cls);
        if (waits != null) {
            for (WaitNode w : waits) {
                if (w.thread != except && w.state == WaitNode.WAITING) {
                    w.thread.interrupt();
                    return true;
                }
            }
        }
        return false;
    }
}
