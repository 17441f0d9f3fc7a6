package org.dthreads.monitor;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.dthreads.ThreadClass;
import org.dthreads.internal.BootDelegation;
import org.dthreads.internal.RateLimitedLog;
import org.dthreads.monitor.internal.MonitorRuntime;

/**
 * Every busy emulated monitor of this site (owned, waited on, or with threads queued): {@code jstack}
 * shows the JVM's monitors only, so this is how to see which class owns what. Read it from code with
 * {@link #snapshot()}, as text with {@link #text()}, or write it to the log with {@link #log()}.
 */
public final class MonitorDump {
    private static final RateLimitedLog LOG = RateLimitedLog.forClass(MonitorDump.class);
    private static final MethodHandle ROWS = BootDelegation.staticMethod(MonitorRuntime.class, "dumpRows",
            MethodType.methodType(List.class));

    private MonitorDump() {}

    /**
     * One busy monitor.
     *
     * @param identityHash    {@code System.identityHashCode} of the object
     * @param type            the object's class name
     * @param ownerClass      the owning thread class, {@link ThreadClass#NONE} if free
     * @param depth           the owner's re-entry depth (0 if free)
     * @param actingFor       the thread (or remote lease) acting for the owner class
     * @param suspendedHolds  holds of the owner class taken over from suspended threads
     * @param waiterClasses   classes waiting in {@code wait()}, in arrival order
     * @param entrantClasses  classes queued to enter (or re-enter after a wait)
     * @param remotePeer      the peer of a remote owner, or {@code null} if the owner is local
     * @param leaseRemainingMillis time left on a remote owner's lease, -1 if local
     */
    public record Entry(int identityHash, String type, long ownerClass, int depth, String actingFor,
            int suspendedHolds, List<Long> waiterClasses, List<Long> entrantClasses, String remotePeer,
            long leaseRemainingMillis) {

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            sb.append(type).append('@').append(Integer.toHexString(identityHash)).append(": ");
            if (ownerClass == ThreadClass.NONE) {
                sb.append("free");
            } else {
                sb.append("owned by ").append(ThreadClass.format(ownerClass)).append(" depth ").append(depth)
                        .append(" acting ").append(actingFor);
                if (suspendedHolds > 0) {
                    sb.append(" (").append(suspendedHolds).append(" suspended hold(s) of the class)");
                }
                if (remotePeer != null) {
                    sb.append(" remote owner at ").append(remotePeer).append(", lease ")
                            .append(leaseRemainingMillis).append(" ms left");
                }
            }
            sb.append("; waiting: ").append(format(waiterClasses)).append("; entering: ").append(format(entrantClasses));
            return sb.toString();
        }

        private static String format(List<Long> classes) {
            List<String> out = new ArrayList<>();
            for (long c : classes) {
                out.add(ThreadClass.format(c));
            }
            return out.toString();
        }
    }

    /**
     * The busy emulated monitors of this site, now (weakly consistent across monitors).
     *
     * @return an unmodifiable list with one entry per busy monitor; empty if there is none, or if the
     *         runtime could not be read (the failure is logged)
     */
    @SuppressWarnings("unchecked")
    public static List<Entry> snapshot() {
        List<Object[]> rows;
        try {
            rows = (List<Object[]>) ROWS.invokeExact();
        } catch (Throwable t) {
            LOG.error("dump-failed", "dthreads: monitor dump failed: " + t);
            return List.of();
        }
        List<Entry> out = new ArrayList<>(rows.size());
        for (Object[] r : rows) {
            out.add(new Entry((Integer) r[0], (String) r[1], (Long) r[2], (Integer) r[3], (String) r[4],
                    (Integer) r[9], boxed((long[]) r[5]), boxed((long[]) r[6]), (String) r[7], (Long) r[8]));
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * The snapshot as text, one monitor a line.
     *
     * @return a header line with the number of busy monitors, then one indented line per
     *         {@link #snapshot()} entry, each line ending in a newline
     */
    public static String text() {
        List<Entry> entries = snapshot();
        StringBuilder sb = new StringBuilder("dthreads emulated monitors: ").append(entries.size()).append(" busy\n");
        for (Entry e : entries) {
            sb.append("  ").append(e).append('\n');
        }
        return sb.toString();
    }

    /** Writes {@link #text()} to the log (INFO, not rate-limited). */
    public static void log() {
        LOG.info(text());
    }

    private static List<Long> boxed(long[] values) {
        List<Long> out = new ArrayList<>(values.length);
        for (long v : values) {
            out.add(v);
        }
        return Collections.unmodifiableList(out);
    }
}
