package org.dthreads.monitor.internal;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads now suspended in an outgoing remote call, each with its {@link Actor}, held so that a thread
 * that dies while marked suspended (an adapter's {@code begin()} whose {@code end()} never came on that
 * thread) is not retained, nor its actor, the call's target, or what they reach (class loaders).
 *
 * <h2>Why weak values keyed by thread id</h2>
 * An actor refers to its thread ({@link Actor#thread}), and a live thread refers to its actor (its
 * thread-local), so a map from thread to actor keeps both alive forever whichever side is weak. Here the key
 * is the thread's id (a long) and the value a weak reference to the actor: the live thread keeps its actor
 * reachable through its thread-local; once the thread has terminated (the JVM drops its thread-locals) the
 * actor, and with it the thread, can be collected. Entries whose actor was collected are dropped from
 * {@link #collected} on every {@link #put} and {@link #size}.
 *
 * <h2>What guards what</h2>
 * {@link #entries} is a concurrent map; an entry is immutable but for its referent, which only the collector
 * clears. Only the actor's own thread puts and removes its entry (so put/remove of one thread never race);
 * other threads only read. An entry also holds, strongly, the actor's {@code classInterruptPending} flag, so
 * that an interrupt kept for a collected actor is still taken out of {@link #pendingCount} when its entry is
 * dropped (otherwise waits would scan for pending interrupts for ever).
 */
final class SuspendedThreads {

    /** One suspended thread. */
    static final class Entry extends WeakReference<Actor> {
        final long threadId;
        /**
         * The thread acted for its class through a binding when its call began (it serves a call chain
         * that came from the network, or a binding of the application), rather than as the class's own
         * home thread: only such a call is a hop an interrupt from the network may be forwarded along.
         */
        final boolean servesChain;
        private final AtomicBoolean interruptPending;

        Entry(Actor actor, boolean servesChain, ReferenceQueue<Actor> queue) {
            super(actor, queue);
            this.threadId = actor.thread.getId();
            this.servesChain = servesChain;
            this.interruptPending = actor.classInterruptPending;
        }
    }

    private final ConcurrentHashMap<Long, Entry> entries = new ConcurrentHashMap<>();
    private final ReferenceQueue<Actor> collected = new ReferenceQueue<>();
    private final AtomicInteger pendingCount;

    /** @param pendingCount the count of kept class interrupts, decremented for a dropped entry's pending one */
    SuspendedThreads(AtomicInteger pendingCount) {
        this.pendingCount = pendingCount;
    }

    /** Records {@code actor} (a thread's actor, on its own thread) as suspended; keeps an entry already there. */
    void put(Actor actor, boolean servesChain) {
        expunge();
        long id = actor.thread.getId();
        Entry e = entries.get(id);
        if (e == null || e.get() != actor) {
            entries.put(id, new Entry(actor, servesChain, collected));
        }
    }

    /** The actor of {@code t} if {@code t} is suspended, else null. */
    Actor get(Thread t) {
        Entry e = entries.get(t.getId());
        Actor a = e == null ? null : e.get();
        return a != null && a.thread == t ? a : null;
    }

    boolean containsKey(Thread t) {
        return get(t) != null;
    }

    /** Removes {@code actor}'s entry (on its own thread, when its outermost call ended). */
    void remove(Actor actor) {
        long id = actor.thread.getId();
        Entry e = entries.get(id);
        if (e != null && e.get() == actor) {
            entries.remove(id, e);
        }
    }

    /** A snapshot of the entries whose actor is alive. */
    List<Entry> entries() {
        List<Entry> out = new ArrayList<>(entries.size());
        for (Entry e : entries.values()) {
            if (e.get() != null) {
                out.add(e);
            }
        }
        return out;
    }

    /** The live suspended actors (a snapshot). */
    Collection<Actor> values() {
        List<Actor> actors = new ArrayList<>(entries.size());
        for (Entry e : entries.values()) {
            Actor a = e.get();
            if (a != null) {
                actors.add(a);
            }
        }
        return actors;
    }

    /** How many threads are recorded as suspended (after dropping collected ones). */
    int size() {
        expunge();
        return entries.size();
    }

    boolean isEmpty() {
        return size() == 0;
    }

    private void expunge() {
        for (Reference<? extends Actor> r; (r = collected.poll()) != null; ) {
            Entry e = (Entry) r;
            entries.remove(e.threadId, e);
            if (e.interruptPending.compareAndSet(true, false)) {
                pendingCount.decrementAndGet();
            }
        }
    }
}
