package org.dthreads.monitor.internal.callbacks;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A platform helper thread for outgoing calls of platform callers in {@code -Ddthreads.callbacks=original} mode
 * ({@link CallHelpers}): parked between calls, handed the next call through a field and woken by a direct
 * {@code unpark} (one wake-up each way, against a pool's queue transfer). A helper belongs to no caller: idle
 * helpers wait on one shared stack ({@link #IDLE}, most recently idle first), a caller pops one and hands it the
 * call, and a helper pushes itself back when the call is done. So there are as many helpers as calls were in flight
 * at the peak (as with a cached pool), and the most recently idle helper (warm caches, just parked) is reused first;
 * one ends after {@link #IDLE_NANOS} without a call. A nested call (a callback the caller runs calls out again)
 * simply pops another helper: a busy helper is never on the stack.
 *
 * <h2>State and what guards it</h2>
 * <ul>
 *   <li>{@link #state}: {@code IDLE}, {@code CALL} (a call is handed over or running) or {@code RETIRED}
 *       (final). A caller moves it {@code IDLE -> CALL} by CAS ({@link #tryHandOver}); the helper moves it
 *       {@code CALL -> IDLE} when the call is done ({@link #finishCall}) and {@code IDLE -> RETIRED} by CAS when it
 *       gives up waiting ({@link #awaitCall}). The two CASes from {@code IDLE} decide the race between a call handed
 *       over and the helper's retirement: exactly one wins, so a handed call is run by the helper (it saw
 *       {@code CALL}), or not handed at all (the caller saw {@code RETIRED}, drops that helper and tries the next):
 *       never run twice, never lost. Read and written only through the accessors named by access mode below.</li>
 *   <li>The stack ({@link #idle}, a {@link ConcurrentLinkedDeque} used through {@code offerFirst}/{@code pollFirst}):
 *       holds a helper at most once, and only while it is {@code IDLE} or has just retired. The helper pushes itself
 *       after its release of {@code IDLE} (pushed first, a caller could pop it while still {@code CALL}, drop it,
 *       and it would idle unreachable); each push is taken by one pop, so a popped helper has exactly one caller,
 *       the only one that may hand it a call. A retired helper removes itself ({@code removeLastOccurrence}: it has
 *       been idle longest, so it is near the bottom), so the stack never keeps an ended thread; one popped between
 *       its retirement and its removal is dropped by that caller (its removal then finds nothing). Why this deque
 *       and not a Treiber stack linking the helpers themselves: a helper is pushed again after every call, so an
 *       intrusive stack has the ABA problem (a pop's CAS succeeding on a helper popped and pushed back meanwhile,
 *       installing a stale next), and removing a retired helper from the middle needs a marking scheme; the deque
 *       allocates a fresh node per push (no ABA under a garbage collector) and removes from the middle.</li>
 *   <li>{@link #work}, {@link #reply}: the handed call. The caller writes them (plain) only after popping the
 *       helper and reading {@code IDLE} with an acquire (so after the helper cleared them: the helper clears them
 *       before its release of {@code IDLE} and its push; the deque's push happens-before the pop that takes it), and
 *       before its CAS to {@code CALL} (a volatile write, so a release); the helper reads and clears them (plain)
 *       after reading {@code CALL} with an acquire. A helper that is not {@code IDLE} has its fields left alone.</li>
 *   <li>{@link #waiter}: the thread that waits for calls (the helper's own), written with a volatile write on
 *       entry to {@link #awaitCall}, before it reads {@code state} with a volatile read (an acquire would not be
 *       ordered after that write); the caller reads it with a volatile read after its CAS. Volatile accesses are
 *       sequentially consistent, so either the caller sees the waiter and unparks it, or the waiter's read sees
 *       {@code CALL} and does not park: no lost wake-up. An unpark before the park is kept as the thread's permit;
 *       a spurious wake-up re-reads {@code state}.</li>
 * </ul>
 *
 * <h2>Ordering of the reply</h2>
 * The helper releases {@code IDLE} and pushes itself before it publishes the reply ({@link CallbackReply#publish},
 * a volatile write then {@code unpark(caller)}): a caller that has seen its reply finds the helper on the stack for
 * its next call, instead of starting a second helper while the first is between the reply and its push.
 *
 * <h2>No leak</h2>
 * A helper holds no caller: it clears the call's fields before going idle, and runs with no context class loader and
 * no inherited thread locals between calls (during a call: the caller's loader, set by
 * {@link CallbackOutgoingCall}), so an idle helper keeps neither an ended caller nor its class loader; the stack
 * holds only idle helpers. (On JDK 17 a thread also keeps the access-control context of its creation, whose
 * protection domains name the loaders of the classes then on the creating caller's stack, as the former pool's
 * threads did; it goes with the helper.)
 */
final class CallerHelper implements Runnable {

    /** A helper ends after this long without a call (as the former pool's threads). */
    static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** States, as {@link #tryHandOver} returns them. */
    static final int IDLE = 0;
    static final int CALL = 1;
    static final int RETIRED = 2;

    /** This JVM's idle platform helpers, most recently idle first. */
    static final Deque<CallerHelper> IDLE_HELPERS = new ConcurrentLinkedDeque<>();

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

    private final Deque<CallerHelper> idle;
    private final long idleNanos;
    private volatile int state; // through the accessors only
    private volatile Thread waiter; // through the accessors only
    private Runnable work;          // caller -> helper, published by state CALL
    private CallbackReply reply;    // caller -> helper, published by state CALL

    /**
     * An idle helper that goes back to {@code idle} after each call and retires after {@code idleNanos} without
     * one; no thread yet, and not on the stack.
     */
    CallerHelper(Deque<CallerHelper> idle, long idleNanos) {
        this.idle = idle;
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
     * Caller: runs {@code work} (then publishes {@code reply}) on this JVM's most recently idle helper, or on a new
     * one.
     *
     * @throws OutOfMemoryError if no thread can start (nothing was handed over)
     */
    static void handOver(Runnable work, CallbackReply reply) {
        handOver(IDLE_HELPERS, work, reply, IDLE_NANOS);
    }

    /** As {@link #handOver(Runnable, CallbackReply)}, with the stack {@code idle} and new helpers' idle time. */
    static void handOver(Deque<CallerHelper> idle, Runnable work, CallbackReply reply, long idleNanos) {
        if (!handToIdle(idle, work, reply)) {
            start(idle, work, reply, idleNanos);
        }
    }

    /**
     * Caller: hands {@code work} to the most recently idle helper on {@code idle}, dropping any found retired.
     *
     * @return false if none was idle (nothing handed over)
     */
    static boolean handToIdle(Deque<CallerHelper> idle, Runnable work, CallbackReply reply) {
        for (CallerHelper h = idle.pollFirst(); h != null; h = idle.pollFirst()) {
            if (h.tryHandOver(work, reply) == IDLE) {
                return true;
            }
            // RETIRED after it was pushed (its own removal will find it gone): dropped, try the next
        }
        return false;
    }

    private static void start(Deque<CallerHelper> idle, Runnable work, CallbackReply reply, long idleNanos) {
        CallerHelper h = new CallerHelper(idle, idleNanos);
        h.handFirst(work, reply);
        Thread t = new Thread(null, h, "dthreads-call-" + NUMBER.incrementAndGet(), 0, false); // no inherited locals
        t.setDaemon(true);
        t.setContextClassLoader(null); // not the caller's loader while idle
        t.start(); // happens-before the helper's first read of work and reply
    }

    /** Caller, before the helper thread starts (or a test's): the first call. */
    void handFirst(Runnable work, CallbackReply reply) {
        this.work = work;
        this.reply = reply;
        setStateRelease(CALL);
    }

    /**
     * Caller that popped this helper (so no other caller touches it): hands {@code work} over if it is idle, and
     * wakes it.
     *
     * @return the state it had: {@code IDLE} if handed over, {@code RETIRED} if ended ({@code CALL}, busy, is not
     *     seen by a caller that popped it, and leaves it alone)
     */
    int tryHandOver(Runnable work, CallbackReply reply) {
        int seen = getStateAcquire();
        if (seen != IDLE) {
            return seen;
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

    /** Helper, once the call's outcome is recorded in {@code r}: idle and on the stack first, then the caller wakes. */
    void finishCall(CallbackReply r) {
        setStateRelease(IDLE);
        idle.offerFirst(this);
        r.publish();
    }

    /**
     * Helper, idle (on the stack): waits for the next call. True once one is handed over (in {@link #work} and
     * {@link #reply}); false once retired after its idle time with no call handed (and off the stack).
     */
    boolean awaitCall() {
        setWaiterVolatile(Thread.currentThread());
        long deadline = System.nanoTime() + idleNanos;
        for (;;) {
            if (getStateVolatile() == CALL) { // volatile, not acquire: ordered after the write of waiter (Dekker)
                return true;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                if (compareAndExchangeState(IDLE, RETIRED) == IDLE) {
                    idle.removeLastOccurrence(this); // gone already if a caller popped it meanwhile
                    return false;
                }
                continue; // a call was handed over just now
            }
            LockSupport.parkNanos(this, left);
            Thread.interrupted(); // nobody may end the wait but a call or the time
        }
    }

    /** A test's view, once {@link #awaitCall} returned true: the work handed over. */
    Runnable handedWork() {
        return work;
    }
}
