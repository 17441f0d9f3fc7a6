package org.dthreads.monitor.internal;

/**
 * The thin state of a monitor slot ({@link MonitorSlots}): "held by this {@link Hold}, this many levels deep, nobody
 * queued, nobody waiting", kept in the slot itself, so an object of a slotted class that is locked without
 * contention allocates nothing and costs one compare-and-set per enter and per exit, with no {@link Monitor} to
 * reach through another cache line (issue 16: a fresh object per lock, and pools too large for the caches).
 * Everything else (contention, {@code wait}, a take-over by another thread of the class, a remote lease, lost
 * exits) needs a {@link Monitor}: the thin state is then <em>inflated</em> into one that holds the same hold at
 * the same depth, which stays in the slot for the object's life.
 *
 * <h2>States of a slot and who changes them</h2>
 * <ul>
 *   <li>{@code null}: free, never contended. The owning thread CASes it to {@code hold.thin(1)}.</li>
 *   <li>a {@code ThinLock} {@code t}: {@code t.hold} holds the monitor {@code t.depth} levels deep. Only the acting
 *       actor of {@code t.hold} moves it to {@code thin(depth + 1)}, {@code thin(depth - 1)} or {@code null}; anyone
 *       may inflate it (CAS to a {@link Monitor} whose owner is {@code t.hold} at {@code t.depth}).</li>
 *   <li>a {@link Monitor}: as before this class existed; never replaced (except a copy, see below).</li>
 * </ul>
 * Every change is a CAS from the value just read, and a {@code ThinLock} value names the whole state (holder and
 * depth; instances are interned per hold, {@link Hold#thin}), so an inflation that succeeds describes the state
 * at the moment of its CAS even if the holder went through other states and back in between (no ABA).
 *
 * <h2>Copies</h2>
 * A slot copied with its object ({@code Object.clone} of an object locked thin, a library copying fields) holds
 * a {@code ThinLock} that does not describe the copy: nobody holds the copy. Unlike a {@link Monitor} (its
 * {@link Monitor#slotOwner}), a shared {@code ThinLock} does not name its object, so a thin value is believed
 * only if its holder's thread lists the object among the slot monitors it holds ({@link HeldSlotMonitors}): the
 * holder lists the object <em>before</em> the CAS that takes it from free and removes it only <em>after</em> the
 * CAS that frees it. A value whose holder does not list the object is a copy: it is replaced by a free
 * {@link Monitor} (never by another thin value, so the slot cannot come back to the copied value and a stale
 * judgement cannot hit a later genuine hold). A copy appears only in a new object, never over the slot of an
 * object in use, and a thread lists an object only after reading its slot empty (a thin take) or once it holds the
 * object's {@link Monitor}: so the holder a copy names never lists the copy while the copy is in its slot.
 *
 * <h2>Memory ordering</h2>
 * Slot reads are acquire loads (volatile ones where the slot is reached through its offset: {@link MonitorSlots.Slot})
 * and every change a CAS (volatile), so the actor that takes a monitor sees every
 * write of the actor that released it, as with {@link Monitor#owner}. A thread that reads a {@code ThinLock}
 * written by the holder's CAS then reads the holder's list sees the object listed (the list store precedes the
 * CAS in the holder's program order). {@code ThinLock} is immutable (final fields), so an instance read from a
 * slot is fully constructed.
 */
final class ThinLock {
    /** Deeper re-entries than this inflate: the interned values per hold stay small. */
    static final int MAX_DEPTH = 8;

    final Hold hold;
    final int depth;

    ThinLock(Hold hold, int depth) {
        this.hold = hold;
        this.depth = depth;
    }

    /**
     * Enter without contention: takes a free slot, or re-enters a thin hold of {@code me} for {@code cls}. Returns
     * false, having changed nothing, when the caller must take the {@link Monitor} path (contended, inflated,
     * copied, too deep, or {@code me} has frozen holds).
     * <p>The slot is read first: a free slot is held by nobody, {@code me} included, so taking it needs no look-up in
     * {@code me}'s list; only a thin value naming {@code me}'s hold is checked against the list (a copy otherwise).
     */
    static boolean tryEnter(MonitorSlots.Slot slot, Object key, Actor me, long cls) {
        Object v = slot.getAcquire(key);
        if (v != null) {
            // held (ours: re-enter), inflated or copied: never listed while a copy is in the slot (see "Copies")
            HeldSlotMonitors held;
            return v instanceof ThinLock t && t.depth < MAX_DEPTH && t.hold.isActive(me, cls)
                    && (held = me.heldSlots) != null && held.containsOwn(key)
                    && slot.compareAndSet(key, (Object) t, (Object) t.hold.thin(t.depth + 1));
        }
        if (me.frozenHolds != 0) {
            return false; // an actor with frozen levels acquires nothing fresh (see Monitor)
        }
        ThinLock first = me.holdFor(cls).thin(1);
        HeldSlotMonitors held = HeldSlotMonitors.of(me);
        held.push(key); // before the CAS: see "Copies"
        if (slot.compareAndSet(key, (Object) null, (Object) first)) {
            return true;
        }
        held.remove(key);
        return false;
    }

    /**
     * Exit of a thin hold of {@code me} for {@code cls}; {@code listed} is the index of {@code key} in {@code me}'s
     * list {@code held} ({@link HeldSlotMonitors#indexOfOwn}: an object not listed was never taken thin by {@code me},
     * and a copy naming {@code me} is no hold, see "Copies"). Returns false, having changed nothing, when the caller
     * must take the {@link Monitor} path (inflated meanwhile, not thin, or not held by {@code me}: that path inflates
     * and answers). Sets {@link Actor#exitCommitted} right after its committing CAS.
     */
    static boolean tryExit(MonitorSlots.Slot slot, Object key, Actor me, long cls, HeldSlotMonitors held, int listed) {
        ThinLock last = me.holdFor(cls).thin(1);
        Object v = slot.compareAndExchange(key, (Object) last, (Object) null); // the common case: the last level
        if (v == last) {
            me.exitCommitted = true;
            try {
                held.removeAt(listed); // after the CAS: see "Copies"
            } catch (Throwable stale) {
                // a stack overflow: the exit is committed; the stale entry is skipped by every reader
            }
            return true;
        }
        if (!(v instanceof ThinLock t) || !t.hold.isActive(me, cls) || t.depth == 1) {
            return false; // inflated, or another hold object of ours: the Monitor path (it inflates first)
        }
        if (!slot.compareAndSet(key, (Object) t, (Object) t.hold.thin(t.depth - 1))) {
            return false;
        }
        me.exitCommitted = true;
        return true;
    }

    /**
     * Whether {@code t}, read from {@code key}'s slot, describes {@code key} (its holder lists it) rather than
     * being a copy. For the Monitor path and diagnostics, not the uncontended one.
     */
    static boolean isGenuine(ThinLock t, Object key) {
        HeldSlotMonitors held = t.hold.actor.heldSlots;
        return held != null && held.contains(key);
    }

    @Override
    public String toString() {
        return hold + " thin, depth " + depth;
    }
}
