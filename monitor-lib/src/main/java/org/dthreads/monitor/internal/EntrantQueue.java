package org.dthreads.monitor.internal;

import java.util.ArrayDeque;
import java.util.concurrent.locks.LockSupport;

/**
 * The entrant queue of one emulated monitor: threads blocked entering it (or re-entering after a wait), in
 * arrival order, and who to wake when it is released. A base class of {@link Monitor} (through
 * {@link WaitSet}) so that the monitor is one object: no indirection on the paths that touch the queue.
 *
 * <h2>What guards what</h2>
 * {@link #entrants} and {@link #orphanEntrants} (and each {@link Entrant}'s {@code orphan}) are guarded by the
 * queue lock: the native monitor of the {@code Monitor} object itself, private to it (operations on different
 * objects never share a lock; nobody parks while holding it). {@link #queuedEntrants} is a volatile mirror of
 * the queue's size, written under the queue lock and read without it, so a release skips the lock when nobody
 * is queued. An {@link Entrant}'s {@code signalled} is a hint only (read and written under the lock by wakers,
 * cleared by its own thread): a missed or extra wake-up costs a spurious retry, never a lost one. The single
 * wake-up of a release ({@code wakeEntrants(false)}: the head only) is passed on when its receiver does not
 * take the monitor: by {@link #dequeue} when it leaves the queue, by {@link #markOrphan} when it turns orphan
 * with the monitor free; while orphans are queued every release wakes every entrant.
 *
 * <h2>Ordering: no lost wake-up</h2>
 * An entrant increments {@code queuedEntrants} (volatile write) and then re-reads the owner (volatile read)
 * before parking; a releaser writes the owner (volatile write) and then reads {@code queuedEntrants}
 * (volatile read). One of the two sees the other (see {@link Monitor}). An unpark that arrives before the
 * park is kept as the thread's permit.
 */
abstract class EntrantQueue {
    volatile int queuedEntrants;
    private ArrayDeque<Entrant> entrants;
    private int orphanEntrants;

    /** Whether the monitor is free (the owner is null); read under the queue lock by {@link #dequeue}. */
    abstract boolean isFree();

    final Entrant enqueue(Thread thread, long cls) {
        Entrant node = new Entrant(thread, cls);
        synchronized (this) {
            if (entrants == null) {
                entrants = new ArrayDeque<>();
            }
            entrants.addLast(node);
            queuedEntrants = queuedEntrants + 1;
        }
        return node;
    }

    final void dequeue(Entrant node) {
        synchronized (this) {
            if (entrants.remove(node)) {
                queuedEntrants = queuedEntrants - 1;
                if (node.orphan) {
                    orphanEntrants--;
                }
            }
            // we may have consumed a wake-up meant for the next entrant: pass it on if the monitor is free
            if (isFree() && !entrants.isEmpty()) {
                LockSupport.unpark(entrants.peekFirst().thread);
            }
        }
    }

    /**
     * Marks {@code node} an orphan (or no longer one). An entrant that turns orphan may have been woken as the
     * head by {@link #wakeEntrants}{@code (false)}, a wake-up meant for whoever can take the monitor: it passes
     * it on to every other entrant if the monitor is free, rather than parking with it (issue 15 §3).
     */
    final void markOrphan(Entrant node, boolean orphan) {
        synchronized (this) {
            if (node.orphan != orphan) {
                node.orphan = orphan;
                orphanEntrants += orphan ? 1 : -1;
                if (orphan && isFree()) {
                    for (Entrant e : entrants) {
                        if (e != node) {
                            e.signalled = true;
                            LockSupport.unpark(e.thread);
                        }
                    }
                }
            }
        }
    }

    /** Unparks the head entrant, or every entrant when {@code all} or when orphans are queued. */
    final void wakeEntrants(boolean all) {
        synchronized (this) {
            if (entrants == null || entrants.isEmpty()) {
                return;
            }
            if (all || orphanEntrants > 0) {
                for (Entrant e : entrants) {
                    e.signalled = true;
                    LockSupport.unpark(e.thread);
                }
            } else {
                Entrant head = entrants.peekFirst();
                if (!head.signalled) {
                    head.signalled = true;
                    LockSupport.unpark(head.thread);
                }
            }
        }
    }

    /** Wakes orphans parked here (a class's holder changed state elsewhere, e.g. began an outgoing call). */
    final void wakeOrphans() {
        synchronized (this) {
            if (entrants == null) {
                return;
            }
            for (Entrant e : entrants) {
                if (e.orphan) {
                    LockSupport.unpark(e.thread);
                }
            }
        }
    }

    /** The queued entrants' classes, in order. Caller holds the queue lock (a dump). */
    final long[] entrantClassesLocked() {
        long[] queued = new long[entrants == null ? 0 : entrants.size()];
        int i = 0;
        if (entrants != null) {
            for (Entrant e : entrants) {
                queued[i++] = e.threadClass;
            }
        }
        return queued;
    }

    /** The queued entrants, in order (a copy). Caller holds the queue lock (diagnostics). */
    final Entrant[] entrantsLocked() {
        return entrants == null ? new Entrant[0] : entrants.toArray(new Entrant[0]);
    }
}
