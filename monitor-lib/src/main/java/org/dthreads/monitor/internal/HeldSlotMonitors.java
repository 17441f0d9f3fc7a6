package org.dthreads.monitor.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * The objects whose slot monitors ({@link MonitorSlots}) one thread holds, so diagnostics can list a slot monitor held
 * without contention: it is in no table, and {@link BusySlotMonitors} notes only contended, waited-on and leased ones.
 * The list also tells a genuine thin hold from a copied one ({@link ThinLock}, "Copies"): a thin enter lists its object
 * before the CAS that takes the slot, a thin exit removes it after the CAS that frees it.
 * The list holds the objects, not their monitors: a thin hold has no {@link Monitor}.
 * One instance per thread that ever acquired a slot monitor ({@link Actor#heldSlots}), registered in a
 * registry of lists (those of dead threads that hold nothing are dropped when it fills up and after every
 * collection, {@link #pruneDead}) that {@link #forEachList} walks ({@link MonitorTable#forEach}: the dump, the
 * wait-for graph, the fault probes).
 *
 * <h2>What is listed</h2>
 * {@link MonitorRuntime#enter} pushes an object when it acquired its slot monitor from free (its depth is then 1;
 * a thin enter pushes just before its CAS, see {@link ThinLock});
 * {@link MonitorRuntime#exit} removes it when the exit left the thread no longer acting for it (the last level,
 * or a hand-back to a suspended actor of the class; a thin exit just after its CAS). Re-entries, take-overs from a suspended actor of the class
 * and wait's re-acquire push nothing: the actor that acquired the monitor from free is at the bottom of every
 * hold of the monitor (activations stack above it, a wait keeps its levels), and its entry stays until its
 * own last exit. So a held slot monitor is in the list of the thread that acquired it, or (a remote lease is
 * the bottom hold) in {@link BusySlotMonitors}. An entry may outlive its hold: while the thread waits on it,
 * and when an exit was lost to a stack overflow (paid later by {@link LostExits}, or retried inside
 * {@code exit}'s recovery), which leaves the entry, and so the object, until the thread ends: rare, and the
 * readers skip monitors that are not busy.
 *
 * <h2>What guards what</h2>
 * <ul>
 *   <li>{@link #top} and {@link #holes}: confined to the owning thread.</li>
 *   <li>{@link #items}: written by the owning thread only. A monitor stays at the index where it was pushed
 *       until it is removed: removal writes null there (a hole below the top, filled by a later push; nulls at
 *       the top are trimmed), nothing ever moves. A full array is copied into a larger one, published with a
 *       release store; the old array is never written again. Elements are plain writes of references.</li>
 *   <li>The registry ({@link #registry}, {@link #registered}): under {@link #REGISTRY}'s lock.</li>
 * </ul>
 *
 * <h2>Ordering: a reader never misses a monitor held since before it started</h2>
 * A reader ({@link #forEachList}, any thread) copies the registry under its lock, then reads each list's
 * {@link #items} with an acquire load and every element of that array. If a push of {@code m} happens-before
 * the read starts (the holder signalled the reader, as a test's latch does, or the dump ran after the holder's
 * remote call went out), then: the registration (under the lock, before the first push) is seen; the array read
 * is the one {@code m} was written to or a later copy (the copy's release store precedes in program order any
 * push into it, so it too happens-before the read), and a held {@code m} never leaves its index in either.
 * A reader may see monitors pushed or removed during its walk, or none of them (stale but never torn: references
 * are atomic). The uncontended path pays a field read and a compare when nothing is slotted, and a plain
 * array store and two int updates per slot acquisition and release; no lock, fence or atomic.
 */
final class HeldSlotMonitors {
    private static final VarHandle ITEMS;

    static {
        try {
            ITEMS = MethodHandles.lookup().findVarHandle(HeldSlotMonitors.class, "items", Object[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final Object REGISTRY = new Object();
    private static HeldSlotMonitors[] registry = new HeldSlotMonitors[16];
    private static int registered;

    /** The thread whose holds these are: a dead thread's empty list is dropped from the registry. */
    private final Thread thread;
    private Object[] items;
    private int top;
    private int holes;

    /** A list for {@code thread}, not registered ({@link #registerFor} registers); for tests. */
    HeldSlotMonitors(Thread thread, int capacity) {
        this.thread = thread;
        this.items = new Object[Math.max(1, capacity)];
    }

    /** The calling thread's list, made and registered on its first slot acquisition. */
    static HeldSlotMonitors of(Actor me) {
        HeldSlotMonitors h = me.heldSlots;
        if (h == null) {
            h = registerFor(Thread.currentThread());
            me.heldSlots = h;
        }
        return h;
    }

    /** Makes and registers a list (dropping the registered lists of dead threads that hold nothing). */
    static HeldSlotMonitors registerFor(Thread thread) {
        HeldSlotMonitors h = new HeldSlotMonitors(thread, 4);
        synchronized (REGISTRY) {
            if (registered == registry.length) {
                pruneLocked();
                if (registered * 2 > registry.length) {
                    registry = Arrays.copyOf(registry, registry.length * 2);
                }
            }
            registry[registered++] = h;
        }
        return h;
    }

    /**
     * Drops the lists of dead threads that hold nothing and shrinks the registry to fit; run after every
     * collection ({@link MonitorTable}'s sweep). Without it a burst of short-lived threads (10,000 virtual
     * threads, one per task) left its lists, and with them its {@code Thread} objects, registered until the
     * registry next filled up, which after the burst may be never.
     */
    static void pruneDead() {
        synchronized (REGISTRY) {
            pruneLocked();
            if (registry.length > 16 && registered * 4 < registry.length) {
                registry = Arrays.copyOf(registry, Math.max(16, registered * 2));
            }
        }
    }

    /** How many lists are registered; for tests. */
    static int registeredCount() {
        synchronized (REGISTRY) {
            return registered;
        }
    }

    /** The registry's length; for tests. */
    static int capacity() {
        synchronized (REGISTRY) {
            return registry.length;
        }
    }

    /**
     * A dead thread's list is read only once its thread is seen dead ({@code isAlive} false: its last actions
     * happen-before that), so its {@link #top} is final by then.
     */
    private static void pruneLocked() {
        int kept = 0;
        for (int i = 0; i < registered; i++) {
            HeldSlotMonitors h = registry[i];
            if (h.thread.isAlive() || h.top > 0) {
                registry[kept++] = h;
            }
        }
        Arrays.fill(registry, kept, registered, null);
        registered = kept;
    }

    // ---- the owning thread ----

    /** Notes that the owning thread acquired (or, thin, is about to acquire) {@code key}'s slot monitor from free. */
    void push(Object m) {
        Object[] a = items;
        if (holes > 0) {
            for (int i = 0; i < top; i++) {
                if (a[i] == null) {
                    a[i] = m;
                    holes--;
                    return;
                }
            }
        }
        if (top == a.length) {
            a = Arrays.copyOf(a, a.length * 2);
            ITEMS.setRelease(this, a); // the copy is complete before a reader can see it
        }
        a[top++] = m;
    }

    /** Notes that the owning thread no longer acts for {@code key}'s monitor; nothing if it is not listed. */
    void remove(Object m) {
        int i = indexOfOwn(m);
        if (i >= 0) {
            removeAt(i);
        }
    }

    /** Removes the entry at {@code i}, an index {@link #indexOfOwn} returned with no push or removal since. */
    void removeAt(int i) {
        Object[] a = items;
        a[i] = null;
        if (i == top - 1) {
            int t = i;
            while (t > 0 && a[t - 1] == null) {
                t--;
                holes--;
            }
            top = t;
        } else {
            holes++;
        }
    }

    /** Whether {@code key} is listed; the owning thread only (most recent first: a re-entry is usually on top). */
    boolean containsOwn(Object key) {
        return indexOfOwn(key) >= 0;
    }

    /** The index of {@code key}'s most recent entry, or -1; the owning thread only. */
    int indexOfOwn(Object key) {
        Object[] a = items;
        for (int i = top - 1; i >= 0; i--) {
            if (a[i] == key) {
                return i;
            }
        }
        return -1;
    }

    // ---- readers (any thread) ----

    /** Whether {@code key} is listed now (see "Ordering": a push that happened-before the call is seen). */
    boolean contains(Object key) {
        Object[] a = (Object[]) ITEMS.getAcquire(this);
        for (Object m : a) {
            if (m == key) {
                return true;
            }
        }
        return false;
    }

    /** The thread whose list this is. */
    Thread thread() {
        return thread;
    }

    /** Visits every object in this list now (see "Ordering"); may include some a moment stale. */
    void forEach(Consumer<Object> action) {
        Object[] a = (Object[]) ITEMS.getAcquire(this);
        for (Object m : a) {
            if (m != null) {
                action.accept(m);
            }
        }
    }

    /** Visits every registered list. */
    static void forEachList(Consumer<HeldSlotMonitors> action) {
        HeldSlotMonitors[] lists;
        synchronized (REGISTRY) {
            lists = Arrays.copyOf(registry, registered);
        }
        for (HeldSlotMonitors h : lists) {
            action.accept(h);
        }
    }
}
