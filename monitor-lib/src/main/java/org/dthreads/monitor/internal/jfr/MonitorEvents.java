package org.dthreads.monitor.internal.jfr;

import java.util.concurrent.atomic.AtomicInteger;
import org.dthreads.monitor.internal.ThreadKinds;

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
 *
 * <h2>Loading the event classes</h2>
 * Loading an event class makes JFR instrument it (class-file transformation) and register it; a virtual thread
 * doing that, or waiting for another thread's class initialization, pins its carrier (JDK 21 to 25), so with
 * thousands of virtual threads blocking at once right after a recording starts, the first enter events would
 * pin several carriers, and so does the first commit of any event in the JVM, which initializes JFR's event writer
 * class. So the classes (and that writer) are loaded once, by the first thread that finds the recorder started: a
 * platform thread loads them itself (its own event is then recorded), a virtual thread hands the loading to a new
 * platform daemon thread and records nothing meanwhile, nor does any thread while the loading runs: an event is
 * lost in that window, never a carrier. {@link #CLASSES} goes {@code UNLOADED -> LOADING} by CAS (one loader) and
 * then to {@code LOADED} by a volatile write after every class is initialized; a thread that reads {@code LOADED}
 * therefore finds the classes initialized and never waits for their initialization. The events are created by
 * {@code new}, not through a method reference, so no call site links a lambda on a virtual thread either.
 */
public final class MonitorEvents {
    private static final int UNLOADED = 0;
    private static final int LOADING = 1;
    private static final int LOADED = 2;
    /** The event classes: {@code UNLOADED}, {@code LOADING} or {@code LOADED} (see above). */
    private static final AtomicInteger CLASSES = new AtomicInteger(UNLOADED);

    private static boolean off;

    private MonitorEvents() {}

    /**
     * A thread is about to park entering a monitor.
     *
     * @return the begun event, or null if it is not enabled (then the other arguments are never needed)
     */
    public static Object enterBlocked() {
        return begin(true);
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
        return begin(false);
    }

    /**
     * A new enter or wait event, begun; null if the events are not ready, not enabled, or off. The event is held as
     * an {@code Object} until the cast: verifying a call that passes an event class where {@code jdk.jfr.Event} is
     * expected would load the event classes with this class (see "Footprint").
     */
    private static Object begin(boolean enter) {
        if (!eventsReady()) {
            return null;
        }
        try {
            Object created = enter ? (Object) new MonitorEnterEvent() : new MonitorWaitEvent();
            jdk.jfr.Event e = (jdk.jfr.Event) created;
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
     * Whether events can be recorded now: a recording has started and the event classes are loaded (see "Loading
     * the event classes"); false when off.
     */
    private static boolean eventsReady() {
        if (off) {
            return false;
        }
        int state = CLASSES.get();
        if (state == LOADED) {
            return true;
        }
        if (state == LOADING) {
            return false;
        }
        try {
            if (!jdk.jfr.FlightRecorder.isInitialized() || !CLASSES.compareAndSet(UNLOADED, LOADING)) {
                return false;
            }
            if (!ThreadKinds.isVirtual(Thread.currentThread())) {
                loadEventClasses();
                return !off;
            }
            Thread loader = new Thread(MonitorEvents::loadEventClasses, "dthreads-jfr-events");
            loader.setDaemon(true);
            loader.start();
            return false;
        } catch (Throwable t) {
            off = true;
            return false;
        }
    }

    /** Loads and initializes every event class (JFR instruments and registers them), then publishes LOADED. */
    private static void loadEventClasses() {
        try {
            ClassLoader loader = MonitorEvents.class.getClassLoader();
            for (Class<?> c : new Class<?>[] {MonitorEnterEvent.class, MonitorWaitEvent.class, DeadlockEvent.class}) {
                Class.forName(c.getName(), true, loader);
            }
            initializeEventWriter();
            CLASSES.set(LOADED);
        } catch (Throwable t) {
            off = true;
        }
    }

    /** JFR's event writer class: its name from JDK 21 on, then JDK 17's. */
    private static final String[] EVENT_WRITERS = {"jdk.jfr.internal.event.EventWriter", "jdk.jfr.internal.EventWriter"};

    /**
     * Initializes JFR's event writer class, which JFR otherwise initializes inside the first commit of any Java event
     * in the JVM: that may be a dthreads event committed by a virtual thread, which then pins its carrier, as do the
     * others waiting for that initialization (seen in {@code VirtualThreadsTest}: a contended monitor enter inside
     * {@code EventWriter.<clinit>}). The boot loader defines it; {@code Class.forName} needs no access to its package.
     */
    private static void initializeEventWriter() {
        for (String name : EVENT_WRITERS) {
            try {
                Class.forName(name, true, null);
                return;
            } catch (ClassNotFoundException anotherJdk) {
                // the other name
            }
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
        if (!eventsReady()) {
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
