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
 * {@link #collected} on every {@link #put} and {@link #size} (by one thread at a time: see {@link #expunging}).
 *
 * <h2>One entry per thread, marked</h2>
 * Every outgoing remote call marks its thread suspended and unmarks it at the end. A thread's {@link Entry}
 * is made and put in the map on its first call, kept by its actor ({@link Actor#suspendedEntry}), and stays
 * until the actor is collected; a call only writes the entry's {@link Entry#suspended} flag. So a call
 * allocates nothing and touches no map ({@code OutgoingCallMarks -prof gc}: 80 bytes per call before, when
 * each call put a new entry in and took it out). Readers skip unmarked entries; the map holds one entry per
 * thread that has made a call and is still alive or not yet collected.
 *
 * <h2>What guards what</h2>
 * {@link #entries} is a concurrent map; only an actor's own thread puts its entry (once), only
 * {@link #expunge} removes it (once collected). An entry is immutable but for its referent, which only the
 * collector clears, and its two volatile fields, which only the actor's own thread writes:
 * {@link Entry#servesChain} while unmarked, then {@link Entry#suspended} (so a reader that sees the mark sees
 * that call's {@code servesChain}; a reader that kept an entry from a snapshot may see a later call's, each a
 * call of this thread). Other threads only read. An entry also holds, strongly, the actor's {@code classInterruptPending} flag, so
 * that an interrupt kept for a collected actor is still taken out of {@link #pendingCount} when its entry is
 * dropped (otherwise waits would scan for pending interrupts for ever).
 */
final class SuspendedThreads {

    /** One suspended thread. */
    static final class Entry extends WeakReference<Actor> {
        final Long threadId;
        /**
         * The thread acted for its class through a binding when its outermost call began (it serves a call
         * chain that came from the network, or a binding of the application), rather than as the class's own
         * home thread: only such a call is a hop an interrupt from the network may be forwarded along.
         */
        volatile boolean servesChain;
        /** The thread is between an outermost {@code begin} and its {@code end}. */
        volatile boolean suspended;
        private final AtomicBoolean interruptPending;

        Entry(Actor actor, ReferenceQueue<Actor> queue) {
            super(actor, queue);
            this.threadId = actor.thread.getId();
            this.interruptPending = actor.classInterruptPending;
        }
    }

    private final ConcurrentHashMap<Long, Entry> entries = new ConcurrentHashMap<>();
    private final ReferenceQueue<Actor> collected = new ReferenceQueue<>();
    /**
     * One thread expunges at a time; the others skip it (it is housekeeping: a collected actor's entry is never
     * read as live, and thread ids are never reused). So the queue's own lock, which {@code poll} takes whenever
     * the queue is not empty, is never contended by the calls of many threads at once, where a virtual thread
     * blocked on it could stay on its carrier (seen with 10,000 virtual threads: JFR
     * {@code jdk.VirtualThreadPinned}, "Contended monitor enter" in {@code ReferenceQueue.poll}).
     */
    private final AtomicBoolean expunging = new AtomicBoolean();
    private final AtomicInteger pendingCount;

    /** @param pendingCount the count of kept class interrupts, decremented for a dropped entry's pending one */
    SuspendedThreads(AtomicInteger pendingCount) {
        this.pendingCount = pendingCount;
    }

    /** Marks {@code actor} (a thread's actor, on its own thread) suspended; a nested call keeps the outermost's mark. */
    void put(Actor actor, boolean servesChain) {
        expunge();
        Entry mine = actor.suspendedEntry;
        if (mine == null) {
            mine = new Entry(actor, collected);
            actor.suspendedEntry = mine;
            entries.put(mine.threadId, mine);
        }
        if (!mine.suspended) { // else a nested call: the outermost one's servesChain stays
            mine.servesChain = servesChain;
            mine.suspended = true;
        }
    }

    /** The actor of {@code t} if {@code t} is suspended, else null. */
    Actor get(Thread t) {
        Entry e = entries.get(t.getId());
        Actor a = e == null || !e.suspended ? null : e.get();
        return a != null && a.thread == t ? a : null;
    }

    boolean containsKey(Thread t) {
        return get(t) != null;
    }

    /** Unmarks {@code actor} (on its own thread, when its outermost call ended). */
    void remove(Actor actor) {
        Entry mine = actor.suspendedEntry;
        if (mine != null) {
            mine.suspended = false;
        }
    }

    /** A snapshot of the entries whose actor is alive. */
    List<Entry> entries() {
        List<Entry> out = new ArrayList<>(entries.size());
        for (Entry e : entries.values()) {
            if (e.suspended && e.get() != null) {
                out.add(e);
            }
        }
        return out;
    }

    /** The live suspended actors (a snapshot). */
    Collection<Actor> values() {
        List<Actor> actors = new ArrayList<>(entries.size());
        for (Entry e : entries.values()) {
            Actor a = e.suspended ? e.get() : null;
            if (a != null) {
                actors.add(a);
            }
        }
        return actors;
    }

    /** How many threads are recorded as suspended (after dropping collected ones). */
    int size() {
        expunge();
        int n = 0;
        for (Entry e : entries.values()) {
            if (e.suspended && e.get() != null) {
                n++;
            }
        }
        return n;
    }

    private void expunge() {
        if (expunging.get() || !expunging.compareAndSet(false, true)) {
            return;
        }
        try {
            for (Reference<? extends Actor> r; (r = collected.poll()) != null; ) {
                Entry e = (Entry) r;
                entries.remove(e.threadId, e);
                if (e.interruptPending.compareAndSet(true, false)) {
                    pendingCount.decrementAndGet();
                }
            }
        } finally {
            expunging.set(false);
        }
    }
}
