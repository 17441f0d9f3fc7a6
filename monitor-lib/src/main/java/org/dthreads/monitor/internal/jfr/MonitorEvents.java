package org.dthreads.monitor.internal.jfr;

/**
 * The JFR events of the emulated monitors ({@code org.dthreads.MonitorEnter}, {@code org.dthreads.MonitorWait},
 * {@code org.dthreads.Deadlock}), behind JDK types so the runtime's hooks need no {@code jdk.jfr} type.
 *
 * <h2>Cost</h2>
 * The hooks run only where a thread is about to park (a blocked entry, a wait), never on an uncontended path.
 * Each begins by building the event and asking {@code isEnabled()}; when no recording has the event enabled it
 * returns null at once and nothing else is done (the JIT removes the allocation of an event that does not
 * escape). An enabled event is committed only if {@code shouldCommit()} (its threshold, 20 ms by default).
 *
 * <h2>Virtual threads</h2>
 * A commit must not pin the committing virtual thread's carrier. JDK 25's {@code EventWriter.putString} writes a
 * string of up to 16 characters inline; a longer one that is among the last four it wrote, or one longer than 128,
 * it stores in {@code jdk.jfr.internal.StringPool}, under a lock on the pool's class with the virtual thread
 * pinned ({@code Continuation.pin}), so a thread that finds the lock taken blocks its carrier. A thread class as
 * text ({@code site:thread}) has 17 characters, and the entrants of one monitor name the same owner: in
 * {@code VirtualThreadsTest}'s check (36,000 blocked entries of virtual threads of distinct classes, two
 * carriers) 2 to 9 commits a run blocked their carriers there. So thread classes are {@code long} fields, which
 * never reach the pool. A 16-character text form would stay inline too, but only while the JDK keeps that
 * threshold (an implementation detail). Still text: {@code ownerSite}, empty unless the owner is remote and then
 * one value per peer or object, stored in the pool once; and the deadlock's cycle, committed by the watch's
 * platform thread.
 *
 * <h2>Failure</h2>
 * Never throws: the hooks sit inside monitor operations that must not fail part-way. A JDK without the
 * {@code jdk.jfr} module (a jlink image) or any error in JFR turns the events off for good. {@link #off} is a
 * plain static written once from false to true: a thread that reads it late only tries once more.
 *
 * <h2>Footprint</h2>
 * Nothing touches an event class until the JVM's flight recorder is initialized (a recording started by
 * {@code -XX:StartFlightRecording}, {@code jcmd JFR.start} or the API): the first {@code jdk.jfr.Event} subclass
 * a JVM loads brings in about 280 classes and 1.3 MB of metaspace (JFR's metadata and annotation proxies), enough
 * to push an application over the first metaspace GC threshold (21 MB), whose concurrent cycle then shrinks G1's
 * heap and multiplies the young collections (issue 16, Derby; {@code docs/benchmarks.md}).
 * {@code FlightRecorder.isInitialized()} loads only that one class, and once it answers true it stays true.
 */
public final class MonitorEvents {
    private static boolean off;

    private MonitorEvents() {}

    /**
     * A thread is about to park entering a monitor.
     *
     * @return the begun event, or null if it is not enabled (then the other arguments are never needed)
     */
    public static Object enterBlocked() {
        return recorderStarted() ? begin(MonitorEnterEvent::new) : null;
    }

    /**
     * Fills a begun enter event with what the blocked thread found.
     *
     * @param event       from {@link #enterBlocked()}, not null
     * @param key         the monitor's object
     * @param hash        its identity hash
     * @param threadClass the blocked thread's class
     * @param owner       the owning thread, null for a remote lease
     * @param ownerClass  the owning class, 0 if free
     * @param ownerSite   the lease's peer, null if the owner is local
     */
    public static void enterOwner(Object event, Object key, int hash, long threadClass, Thread owner, long ownerClass,
            String ownerSite) {
        try {
            MonitorEnterEvent e = (MonitorEnterEvent) event;
            e.monitorClass = key.getClass();
            e.identityHash = hash;
            e.threadClass = threadClass;
            e.owner = owner;
            e.ownerClass = ownerClass;
            e.ownerSite = ownerSite == null ? "" : ownerSite;
        } catch (Throwable t) {
            off = true;
        }
    }

    /**
     * The blocked thread has entered: commits the event if it blocked longer than the threshold.
     *
     * @param event from {@link #enterBlocked()}; null does nothing
     */
    public static void entered(Object event) {
        if (event == null) {
            return;
        }
        try {
            MonitorEnterEvent e = (MonitorEnterEvent) event;
            e.end();
            if (e.shouldCommit()) {
                e.commit();
            }
        } catch (Throwable t) {
            off = true;
        }
    }

    /**
     * A thread begins {@code wait()}.
     *
     * @return the begun event, or null if it is not enabled
     */
    public static Object waitBegins() {
        return recorderStarted() ? begin(MonitorWaitEvent::new) : null;
    }

    /** Whether an event could be enabled at all: false before the first recording, and when off. */
    private static boolean recorderStarted() {
        if (off) {
            return false;
        }
        try {
            return jdk.jfr.FlightRecorder.isInitialized();
        } catch (Throwable t) {
            off = true;
            return false;
        }
    }

    /** A new event, begun, or null if off or not enabled; a failure turns the events off. */
    private static Object begin(java.util.function.Supplier<? extends jdk.jfr.Event> factory) {
        if (off) {
            return null;
        }
        try {
            jdk.jfr.Event e = factory.get();
            if (!e.isEnabled()) {
                return null;
            }
            e.begin();
            return e;
        } catch (Throwable t) {
            off = true;
            return null;
        }
    }

    /**
     * The wait has ended and the monitor is held again: commits the event if it lasted longer than the threshold.
     *
     * @param event        from {@link #waitBegins()}; null does nothing
     * @param key          the monitor's object
     * @param hash         its identity hash
     * @param threadClass  the waiting thread's class
     * @param notifier     the notifying thread, null if none or unknown
     * @param timeoutNanos the timeout, 0 for none
     * @param notified     whether a notify ended the wait
     * @param interrupted  whether an interrupt ended it
     */
    public static void waited(Object event, Object key, int hash, long threadClass, Thread notifier, long timeoutNanos,
            boolean notified, boolean interrupted) {
        if (event == null) {
            return;
        }
        try {
            MonitorWaitEvent e = (MonitorWaitEvent) event;
            e.end();
            if (e.shouldCommit()) {
                e.monitorClass = key.getClass();
                e.identityHash = hash;
                e.threadClass = threadClass;
                e.notifier = notified ? notifier : null;
                e.timeout = timeoutNanos;
                e.timedOut = !notified && !interrupted;
                e.interrupted = interrupted && !notified;
                e.commit();
            }
        } catch (Throwable t) {
            off = true;
        }
    }

    /**
     * The automatic check found a deadlock: records it if the event is enabled.
     *
     * @param classes how many thread classes the cycle has
     * @param sites   how many sites it spans
     * @param text    the cycle as the report prints it
     */
    public static void deadlock(int classes, int sites, String text) {
        if (!recorderStarted()) {
            return;
        }
        try {
            DeadlockEvent e = new DeadlockEvent();
            if (e.isEnabled()) {
                e.classes = classes;
                e.sites = sites;
                e.cycle = text;
                e.commit();
            }
        } catch (Throwable t) {
            off = true;
        }
    }
}
