package org.dthreads.monitor;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import org.dthreads.internal.BootDelegation;
import org.dthreads.monitor.internal.InterruptStatus;
import org.dthreads.monitor.internal.LostExits;
import org.dthreads.monitor.internal.MonitorRuntime;

/**
 * The static entry points that rewritten bytecode calls instead of the JVM's monitor operations. Each has
 * the stack shape of the instruction or method it replaces, so the rewriter swaps one instruction:
 *
 * <table>
 *   <caption>Replacements</caption>
 *   <tr><th>original</th><th>rewritten</th></tr>
 *   <tr><td>{@code monitorenter}</td><td>{@code invokestatic Monitors.enter(Object)}</td></tr>
 *   <tr><td>{@code monitorexit}</td><td>{@code invokestatic Monitors.exit(Object)}</td></tr>
 *   <tr><td>{@code Object.wait()}</td><td>{@code Monitors.waitOn(Object)}</td></tr>
 *   <tr><td>{@code Object.wait(long)}</td><td>{@code Monitors.waitOn(Object, long)}</td></tr>
 *   <tr><td>{@code Object.wait(long, int)}</td><td>{@code Monitors.waitOn(Object, long, int)}</td></tr>
 *   <tr><td>{@code Object.notify()}</td><td>{@code Monitors.notifyOne(Object)}</td></tr>
 *   <tr><td>{@code Object.notifyAll()}</td><td>{@code Monitors.notifyAll(Object)}</td></tr>
 *   <tr><td>{@code Thread.holdsLock(Object)}</td><td>{@code Monitors.holdsLock(Object)}</td></tr>
 *   <tr><td>{@code Thread.interrupt()}</td><td>{@code Monitors.interrupt(Thread)}</td></tr>
 *   <tr><td>{@code Thread.isInterrupted()}</td><td>{@code Monitors.isInterrupted(Thread)}</td></tr>
 *   <tr><td>{@code Thread.interrupted()}</td><td>{@code Monitors.interrupted()}</td></tr>
 * </table>
 *
 * <h2>Native mode</h2>
 * Objects that code dthreads does not rewrite may lock (JDK collections, streams, {@code Thread}s...)
 * keep the JVM's monitor. {@link #isEmulated(Object)} tells which; the decision is per class and never
 * changes. {@code wait}, {@code notify}, {@code notifyAll} and {@code holdsLock} dispatch on it
 * themselves. {@code monitorenter}/{@code monitorexit} cannot be done from Java code, so the rewriter emits
 * both paths for {@code synchronized} on a target it cannot prove emulated:
 * {@code if (Monitors.isEmulated(o)) { Monitors.enter(o); ... Monitors.exit(o); } else { monitorenter ... }};
 * {@link #enter} and {@link #exit} always emulate. {@code synchronized} methods of rewritten classes are
 * first lowered to such a block on {@code this} (or on the class), so they take the same test.
 *
 * <h2>Semantics</h2>
 * The JVM's, with "owner" meaning the calling thread's equivalence class
 * ({@link org.dthreads.DThreads#currentClass()}) instead of the thread: re-entrant, the same exceptions in
 * the same order, {@code wait} releases and restores the whole depth. See {@code docs/remote-monitors.md}
 * for several physical threads of one class and for objects at other sites.
 *
 * <h2>One runtime per JVM</h2>
 * State lives in {@code org.dthreads.monitor.internal.MonitorRuntime}. When the agent has put
 * monitor-lib on the bootstrap class path and this copy was loaded by another class loader, every method
 * here calls the bootstrap copy through a constant method handle ({@link BootDelegation}), so the JVM has
 * one monitor table.
 */
public final class Monitors {
    private static final boolean DELEGATES =
            BootDelegation.runtimeClass(MonitorRuntime.class) != MonitorRuntime.class;

    private static final MethodHandle IS_EMULATED = runtime("isEmulated", MethodType.methodType(boolean.class, Object.class));
    private static final MethodHandle ENTER = runtime("enter", MethodType.methodType(void.class, Object.class));
    private static final MethodHandle EXIT = runtime("exit", MethodType.methodType(void.class, Object.class));
    private static final MethodHandle RECORD_LOST_EXITS = runtime("recordLostExits",
            MethodType.methodType(void.class, Object.class, int.class));
    private static final MethodHandle WAIT = runtime("waitOn",
            MethodType.methodType(void.class, Object.class, long.class, int.class));
    private static final MethodHandle NOTIFY = runtime("notifyOne", MethodType.methodType(void.class, Object.class));
    private static final MethodHandle NOTIFY_ALL = runtime("notifyAll", MethodType.methodType(void.class, Object.class));
    private static final MethodHandle HOLDS_LOCK = runtime("holdsLock", MethodType.methodType(boolean.class, Object.class));
    private static final MethodHandle INTERRUPT = runtime("interrupt", MethodType.methodType(void.class, Thread.class));
    private static final MethodHandle IS_INTERRUPTED = BootDelegation.staticMethod(InterruptStatus.class, "isInterrupted",
            MethodType.methodType(boolean.class, Thread.class));
    private static final MethodHandle INTERRUPTED = BootDelegation.staticMethod(InterruptStatus.class, "interrupted",
            MethodType.methodType(boolean.class));

    static {
        // initialized now, not by the first getstatic in exit's catch, where running <clinit> could overflow;
        // and both resolved in this class's loader, where rewritten code's exit guard (and this class's catch)
        // then finds them without a loadClass call (see ExitOverflowGuard)
        Object unused = LostExits.LOCK;
        Class<?> overflow = StackOverflowError.class;
    }

    private Monitors() {}

    private static MethodHandle runtime(String name, MethodType type) {
        return BootDelegation.staticMethod(MonitorRuntime.class, name, type);
    }

    /**
     * Whether {@code o}'s monitor is emulated (else the JVM's).
     *
     * @param o the object whose monitor is asked about
     * @return {@code true} if {@code o}'s monitor is emulated by dthreads, {@code false} if it is the JVM's
     * @throws NullPointerException if {@code o} is null
     */
    public static boolean isEmulated(Object o) {
        if (!DELEGATES) {
            return MonitorRuntime.isEmulated(o);
        }
        try {
            return (boolean) IS_EMULATED.invokeExact(o);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * {@code monitorenter}: blocks until the calling class owns {@code o}'s monitor; re-entrant.
     *
     * @param o the object whose monitor to enter (always emulated, whatever {@link #isEmulated} says)
     * @throws NullPointerException if {@code o} is null
     */
    public static void enter(Object o) {
        if (!DELEGATES) {
            MonitorRuntime.enter(o);
            return;
        }
        try {
            if (LostExits.pendingRepairs) {
                forwardLostExits();
            }
            ENTER.invokeExact(o);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * {@code monitorexit}: releases one level. Throws only {@link NullPointerException} and
     * {@link IllegalMonitorStateException}; never an error from inside the runtime (see
     * {@code MonitorRuntime.exit}), because javac's handler around a {@code monitorexit} would loop on it.
     *
     * @param o the object whose emulated monitor to release one level of
     * @throws NullPointerException if {@code o} is null
     * @throws IllegalMonitorStateException if the calling thread's class does not own {@code o}'s monitor
     */
    public static void exit(Object o) {
        try {
            if (!DELEGATES) {
                MonitorRuntime.exit(o);
                return;
            }
            if (LostExits.pendingRepairs) {
                forwardLostExits();
            }
            EXIT.invokeExact(o);
        } catch (IllegalMonitorStateException | NullPointerException e) {
            throw e;
        } catch (Throwable t) {
            // The call itself overflowed the stack before the runtime could catch anything. No calls
            // here: monitorenter and array accesses only (keep in step with LostExits.record).
            synchronized (LostExits.LOCK) {
                int free = -1;
                int i = 0;
                for (; i < LostExits.SLOTS; i++) {
                    Object k = LostExits.KEYS[i];
                    if (k == o) {
                        break;
                    }
                    if (k == null && free < 0) {
                        free = i;
                    }
                }
                if (i < LostExits.SLOTS) {
                    LostExits.LEVELS[i]++;
                } else if (free >= 0) {
                    LostExits.KEYS[free] = o;
                    LostExits.LEVELS[free] = 1;
                } else {
                    LostExits.UNRECORDED++;
                }
                LostExits.pendingRepairs = true;
            }
        }
    }

    /**
     * A delegating copy records its own lost exits (in its own copy of LostExits, the only fields its
     * catch can reach without a call) and hands them to the runtime's copy at its next operation, where
     * they are paid like the runtime's own.
     */
    private static void forwardLostExits() throws Throwable {
        synchronized (LostExits.LOCK) {
            for (int i = 0; i < LostExits.SLOTS; i++) {
                Object key = LostExits.KEYS[i];
                if (key != null) {
                    RECORD_LOST_EXITS.invokeExact(key, LostExits.LEVELS[i]);
                    LostExits.KEYS[i] = null; // forwarded: no call between the forward and this write
                    LostExits.LEVELS[i] = 0;
                }
            }
            // exits whose call overflowed, recorded by rewritten code (ExitOverflowGuard) in this copy
            int overflowed = Math.min(LostExits.overflowedExits, LostExits.OVERFLOWED.length);
            for (int i = 0; i < overflowed; i++) {
                Object key = LostExits.OVERFLOWED[i];
                if (key != null) {
                    RECORD_LOST_EXITS.invokeExact(key, 1);
                    LostExits.OVERFLOWED[i] = null; // forwarded: no call between the forward and this write
                }
            }
            LostExits.overflowedExits = 0;
            LostExits.pendingRepairs = false;
        }
    }

    /**
     * {@code o.wait()}: releases {@code o}'s monitor (the whole depth) and waits, without timeout, to be
     * notified or interrupted, then re-enters it at the same depth.
     *
     * @param o the object to wait on; the calling thread's class must own its monitor
     * @throws NullPointerException if {@code o} is null
     * @throws IllegalMonitorStateException if the calling thread's class does not own {@code o}'s monitor
     * @throws InterruptedException if the calling thread (or, for an emulated monitor, its class) is
     *         interrupted before or while waiting
     */
    public static void waitOn(Object o) throws InterruptedException {
        waitOn(o, 0L, 0);
    }

    /**
     * {@code o.wait(timeoutMillis)}: as {@link #waitOn(Object)}, but also returns once the timeout elapses.
     *
     * @param o the object to wait on; the calling thread's class must own its monitor
     * @param timeoutMillis the longest time to wait, in milliseconds; 0 waits without timeout
     * @throws NullPointerException if {@code o} is null
     * @throws IllegalArgumentException if {@code timeoutMillis} is negative
     * @throws IllegalMonitorStateException if the calling thread's class does not own {@code o}'s monitor
     * @throws InterruptedException if the calling thread (or, for an emulated monitor, its class) is
     *         interrupted before or while waiting
     */
    public static void waitOn(Object o, long timeoutMillis) throws InterruptedException {
        waitOn(o, timeoutMillis, 0);
    }

    /**
     * {@code o.wait(timeoutMillis, nanos)}: as {@link #waitOn(Object, long)}, with the JVM's checks in the
     * JVM's order (null, bad timeout, not owner, pending interrupt).
     *
     * @param o the object to wait on; the calling thread's class must own its monitor
     * @param timeoutMillis the longest time to wait, in milliseconds; 0 (with {@code nanos} 0) waits
     *        without timeout
     * @param nanos additional time, in nanoseconds, 0 to 999999; as in {@code Object.wait(long, int)} a
     *        non-zero value adds one millisecond to the timeout
     * @throws NullPointerException if {@code o} is null
     * @throws IllegalArgumentException if {@code timeoutMillis} is negative or {@code nanos} is out of range
     * @throws IllegalMonitorStateException if the calling thread's class does not own {@code o}'s monitor
     * @throws InterruptedException if the calling thread (or, for an emulated monitor, its class) is
     *         interrupted before or while waiting
     */
    public static void waitOn(Object o, long timeoutMillis, int nanos) throws InterruptedException {
        if (!DELEGATES) {
            MonitorRuntime.waitOn(o, timeoutMillis, nanos);
            return;
        }
        try {
            WAIT.invokeExact(o, timeoutMillis, nanos);
        } catch (RuntimeException | Error | InterruptedException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * {@code o.notify()}: wakes one class waiting on {@code o}, if any.
     *
     * @param o the object to notify on; the calling thread's class must own its monitor
     * @throws NullPointerException if {@code o} is null
     * @throws IllegalMonitorStateException if the calling thread's class does not own {@code o}'s monitor
     */
    public static void notifyOne(Object o) {
        if (!DELEGATES) {
            MonitorRuntime.notifyOne(o);
            return;
        }
        try {
            NOTIFY.invokeExact(o);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * {@code o.notifyAll()}: wakes every class waiting on {@code o}.
     *
     * @param o the object to notify on; the calling thread's class must own its monitor
     * @throws NullPointerException if {@code o} is null
     * @throws IllegalMonitorStateException if the calling thread's class does not own {@code o}'s monitor
     */
    public static void notifyAll(Object o) {
        if (!DELEGATES) {
            MonitorRuntime.notifyAll(o);
            return;
        }
        try {
            NOTIFY_ALL.invokeExact(o);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * {@code Thread.holdsLock(o)}: whether the calling thread's class owns {@code o}'s monitor.
     *
     * @param o the object whose monitor is asked about
     * @return {@code true} if the calling thread's class owns {@code o}'s monitor (for a native-mode
     *         object: if the calling thread holds its JVM monitor)
     * @throws NullPointerException if {@code o} is null
     */
    public static boolean holdsLock(Object o) {
        if (!DELEGATES) {
            return MonitorRuntime.holdsLock(o);
        }
        try {
            return (boolean) HOLDS_LOCK.invokeExact(o);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * {@code t.interrupt()}. A thread blocked in an outgoing remote call ({@link org.dthreads.monitor.spi.OutgoingCalls}) stands for
     * its class: the interrupt goes to that class's emulated wait on this site (a callback thread), or is
     * kept for the class's next wait here, or is given back to {@code t} when its call returns; any other
     * thread is simply interrupted. If no wait here takes it, it is also forwarded along the thread's
     * outgoing call to the site it went to (and on along the chain), and delivered once.
     *
     * @param t the thread to interrupt
     */
    public static void interrupt(Thread t) {
        if (!DELEGATES) {
            MonitorRuntime.interrupt(t);
            return;
        }
        try {
            INTERRUPT.invokeExact(t);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * {@code t.isInterrupted()}, agreeing with {@link #interrupt}: {@code t}'s own interrupt status (an
     * override of {@code isInterrupted} still runs), or {@code true} while an interrupt that
     * {@link #interrupt} kept for the class {@code t} acts for is pending on this site: {@code t} is blocked in
     * an outgoing remote call and no wait of its class has taken the interrupt yet, or {@code t} is the calling
     * thread and acts for such a class (a callback serving {@code t}'s call chain). Never throws for a
     * non-null {@code t}; with no interrupt kept on this site it costs the JDK's call and one volatile read.
     *
     * @param t the thread asked about
     * @return whether the logical thread {@code t} stands for is interrupted
     * @throws NullPointerException if {@code t} is null
     */
    public static boolean isInterrupted(Thread t) {
        if (!DELEGATES) {
            return InterruptStatus.isInterrupted(t);
        }
        try {
            return (boolean) IS_INTERRUPTED.invokeExact(t);
        } catch (NullPointerException e) {
            throw e;
        } catch (Throwable e) {
            return t.isInterrupted(); // the bootstrap copy logs its own failures
        }
    }

    /**
     * {@code Thread.interrupted()}, agreeing with {@link #interrupt}: clears the calling thread's interrupt
     * status and every interrupt {@link #interrupt} kept on this site for the class the calling thread acts
     * for, and returns whether there was any. An interrupt taken here is delivered: no later wait of the class
     * throws for it and it is not given back to the thread it was meant for. Never throws; with no
     * interrupt kept on this site it costs the JDK's call and one volatile read.
     *
     * @return whether the calling thread, or its class on this site, was interrupted
     */
    public static boolean interrupted() {
        if (!DELEGATES) {
            return InterruptStatus.interrupted();
        }
        try {
            return (boolean) INTERRUPTED.invokeExact();
        } catch (Throwable e) {
            return Thread.interrupted(); // the bootstrap copy logs its own failures
        }
    }

    private static final MethodHandle KEEP_NATIVE = BootDelegation.staticMethod(
            org.dthreads.monitor.internal.NativeMarks.class, "keepNative", MethodType.methodType(Object.class, Object.class));

    /**
     * Marks {@code o} as keeping the JVM's monitor: rewritten code calls this where an object that JDK code
     * also locks crosses the JDK's API (the result of {@code ClassLoader.getClassLoadingLock}, the lock
     * given to {@code Writer(Object)}...), so that {@code synchronized} on it in rewritten code still
     * excludes the JDK's. {@link #isEmulated} is false for a marked object from then on. Never throws.
     *
     * @param o the object, or null (ignored)
     * @return {@code o}
     */
    public static Object keepNative(Object o) {
        if (!DELEGATES) {
            return org.dthreads.monitor.internal.NativeMarks.keepNative(o);
        }
        try {
            return (Object) KEEP_NATIVE.invokeExact(o);
        } catch (Throwable t) {
            return o; // the bootstrap copy logs its own failures; a failure of the call itself is not one
        }
    }
}
