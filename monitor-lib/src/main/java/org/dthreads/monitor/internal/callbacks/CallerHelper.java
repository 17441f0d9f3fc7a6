package org.dthreads.monitor.internal.callbacks;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The helper thread kept by one platform caller thread for its outgoing calls in
 * {@code -Ddthreads.callbacks=original} mode ({@link CallHelpers}): parked between calls, handed the next call
 * through a field and woken by a direct {@code unpark} (one wake-up each way, against a pool's queue transfer).
 * It ends after {@link #IDLE_NANOS} without a call, or within {@link #CHECK_NANOS} of its caller's end. A caller
 * keeps one helper per nesting depth (a callback it runs that calls out again needs a second helper while the
 * first waits for the outer reply): a chain from {@link #FIRST} through {@link #deeper}.
 *
 * <h2>State and what guards it</h2>
 * <ul>
 *   <li>{@link #state}: {@code IDLE}, {@code CALL} (a call is handed over or running) or {@code RETIRED}
 *       (final). The caller moves it {@code IDLE -> CALL} by CAS ({@link #tryHandOver}); the helper moves it
 *       {@code CALL -> IDLE} when the call is done ({@link #finishCall}) and {@code IDLE -> RETIRED} by CAS when it
 *       gives up waiting ({@link #awaitCall}). The two CASes from {@code IDLE} decide the race between a call handed
 *       over and the helper's retirement: exactly one wins, so a handed call is run by the helper (it saw
 *       {@code CALL}), or not handed at all (the caller saw {@code RETIRED} and starts another helper): never run
 *       twice, never lost. Read and written only through the accessors named by access mode below.</li>
 *   <li>{@link #work}, {@link #reply}: the handed call. The caller writes them (plain) only after reading
 *       {@code IDLE} with an acquire (so after the helper cleared them: the helper clears them before its release
 *       of {@code IDLE}), and before its CAS to {@code CALL} (a volatile write, so a release); the helper reads and
 *       clears them (plain) after reading {@code CALL} with an acquire. A busy helper's fields are never touched
 *       (it may not have read them yet: a nested call tries it while the outer call is being handed over).</li>
 *   <li>{@link #waiter}: the thread that waits for calls (the helper's own), written with a volatile write on
 *       entry to {@link #awaitCall}, before it reads {@code state} with a volatile read (an acquire would not be
 *       ordered after that write); the caller reads it with a volatile read after its CAS. Volatile accesses are
 *       sequentially consistent, so either the caller sees the waiter and unparks it, or the waiter's read sees
 *       {@code CALL} and does not park: no lost wake-up. An unpark before the park is kept as the thread's permit;
 *       a spurious wake-up re-reads {@code state}.</li>
 *   <li>{@link #deeper} and {@link #FIRST}: touched by the caller thread only.</li>
 * </ul>
 *
 * <h2>Ordering of the reply</h2>
 * The helper releases {@code IDLE} before it publishes the reply ({@link CallbackReply#publish}, a volatile write
 * then {@code unpark(caller)}): a caller that has seen its reply finds its helper idle for its next call,
 * instead of starting a second helper while the first is between the reply and its next wait.
 *
 * <h2>No leak</h2>
 * The helper holds its caller weakly and runs with no context class loader and no inherited thread locals between
 * calls (during a call: the caller's loader, set by {@link CallbackOutgoingCall}), so an idle helper keeps neither a
 * dead caller nor its class loader; the caller's {@link ThreadLocal} goes with the caller, and an orphaned helper
 * retires at its next check. (On JDK 17 a thread also keeps the access-control context of its creation, whose
 * protection domains name the loaders of the classes then on the caller's stack, as the former pool's threads
 * did; it goes with the helper.)
 */
final class CallerHelper implements Runnable {

    /** A helper ends after this long without a call (as the former pool's threads). */
    static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** How often an idle helper checks that its caller still lives. */
    static final long CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** States, as {@link #tryHandOver} returns them. */
    static final int IDLE = 0;
    static final int CALL = 1;
    static final int RETIRED = 2;

    private static final VarHandle STATE;
    private static final VarHandle WAITER;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(CallerHelper.class, "state", int.class);
            WAITER = lookup.findVarHandle(CallerHelper.class, "waiter", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final AtomicInteger NUMBER = new AtomicInteger();
    /** The calling thread's helper for its outermost call; deeper ones chained from it. */
    private static final ThreadLocal<CallerHelper> FIRST = new ThreadLocal<>();

    private final WeakReference<Thread> caller;
    private final long idleNanos;
    private volatile int state; // through the accessors only
    private volatile Thread waiter; // through the accessors only
    private Runnable work;          // caller -> helper, published by state CALL
    private CallbackReply reply;    // caller -> helper, published by state CALL
    private CallerHelper deeper;    // caller thread only

    /** An idle helper of {@code caller} that retires after {@code idleNanos} without a call; no thread yet. */
    CallerHelper(Thread caller, long idleNanos) {
        this.caller = new WeakReference<>(caller);
        this.idleNanos = idleNanos;
    }

    // ---- VarHandle accessors, named by access mode: every read and write of state and waiter goes through them ----

    private int getStateAcquire() {
        return (int) STATE.getAcquire(this);
    }

    private int getStateVolatile() {
        return (int) STATE.getVolatile(this);
    }

    private void setStateRelease(int s) {
        STATE.setRelease(this, s);
    }

    private int compareAndExchangeState(int expected, int update) {
        return (int) STATE.compareAndExchange(this, expected, update);
    }

    private void setWaiterVolatile(Thread t) {
        WAITER.setVolatile(this, t);
    }

    private Thread getWaiterVolatile() {
        return (Thread) WAITER.getVolatile(this);
    }

    // ---- the caller's side ----

    /**
     * Caller: runs {@code work} (then publishes {@code reply}) on the calling thread's idle helper at this nesting
     * depth, or on a new one; helpers retire after {@code idleNanos}.
     *
     * @throws OutOfMemoryError if no thread can start (nothing was handed over)
     */
    static void handOver(Runnable work, CallbackReply reply, long idleNanos) {
        CallerHelper previous = null;
        for (CallerHelper h = FIRST.get(); h != null; previous = h, h = h.deeper) {
            int witness = h.tryHandOver(work, reply);
            if (witness == IDLE) {
                return;
            }
            if (witness == RETIRED) { // replace it in the chain
                CallerHelper fresh = start(work, reply, idleNanos);
                fresh.deeper = h.deeper;
                link(previous, fresh);
                return;
            }
            // CALL: it runs a call of an outer level; try the next depth
        }
        link(previous, start(work, reply, idleNanos));
    }

    private static void link(CallerHelper previous, CallerHelper h) {
        if (previous == null) {
            FIRST.set(h);
        } else {
            previous.deeper = h;
        }
    }

    private static CallerHelper start(Runnable work, CallbackReply reply, long idleNanos) {
        CallerHelper h = new CallerHelper(Thread.currentThread(), idleNanos);
        h.handFirst(work, reply);
        Thread t = new Thread(null, h, "dthreads-call-" + NUMBER.incrementAndGet(), 0, false); // no inherited locals
        t.setDaemon(true);
        t.setContextClassLoader(null); // not the caller's loader while idle
        t.start(); // happens-before the helper's first read of work and reply
        return h;
    }

    /** Caller, before the helper thread starts: the first call. */
    void handFirst(Runnable work, CallbackReply reply) {
        this.work = work;
        this.reply = reply;
        setStateRelease(CALL);
    }

    /**
     * Caller: hands {@code work} over if this helper is idle, and wakes it.
     *
     * @return the state it had: {@code IDLE} if handed over, {@code CALL} if busy, {@code RETIRED} if ended
     */
    int tryHandOver(Runnable work, CallbackReply reply) {
        int seen = getStateAcquire();
        if (seen != IDLE) {
            return seen; // busy with an outer call whose fields it may not have read yet: leave them alone
        }
        this.work = work; // IDLE seen: the helper cleared them before its release of IDLE
        this.reply = reply;
        int witness = compareAndExchangeState(IDLE, CALL);
        if (witness == IDLE) {
            LockSupport.unpark(getWaiterVolatile()); // null (not yet waiting): it will read CALL
        } else { // RETIRED meanwhile: the helper has ended and never reads them
            this.work = null;
            this.reply = null;
        }
        return witness;
    }

    // ---- the helper's side ----

    @Override
    public void run() {
        do {
            runHandedCall();
        } while (awaitCall());
    }

    /** Helper, once a call is handed over (first, or {@link #awaitCall} returned true): runs it, then is idle. */
    void runHandedCall() {
        Runnable w = work;
        CallbackReply r = reply;
        work = null;
        reply = null;
        Thread.interrupted(); // an interrupt left from before is not this call's
        try {
            w.run();
        } catch (Throwable t) {
            r.record(null, t);
        }
        finishCall(r);
    }

    /** Helper, once the call's outcome is recorded in {@code r}: idle first, then the caller wakes. */
    void finishCall(CallbackReply r) {
        setStateRelease(IDLE);
        r.publish();
    }

    /**
     * Helper, idle: waits for the next call. True once one is handed over (in {@link #work} and
     * {@link #reply}); false once retired (its idle time passed, or its caller ended, with no call handed).
     */
    boolean awaitCall() {
        setWaiterVolatile(Thread.currentThread());
        long deadline = System.nanoTime() + idleNanos;
        for (;;) {
            if (getStateVolatile() == CALL) { // volatile, not acquire: ordered after the write of waiter (Dekker)
                return true;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || callerEnded()) {
                if (compareAndExchangeState(IDLE, RETIRED) == IDLE) {
                    return false;
                }
                continue; // a call was handed over just now
            }
            LockSupport.parkNanos(this, Math.min(left, CHECK_NANOS));
            Thread.interrupted(); // nobody may end the wait but a call or the time
        }
    }

    private boolean callerEnded() {
        Thread c = caller.get();
        return c == null || !c.isAlive();
    }

    /** A test's view, once {@link #awaitCall} returned true: the work handed over. */
    Runnable handedWork() {
        return work;
    }
}
