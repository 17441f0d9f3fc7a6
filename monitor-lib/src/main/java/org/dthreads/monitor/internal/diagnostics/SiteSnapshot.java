package org.dthreads.monitor.internal.diagnostics;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.dthreads.ThreadClass;
import org.dthreads.internal.KernelLink;
import org.dthreads.monitor.internal.DiagnosticRows;

/**
 * This site's wait-for state at one moment: the JVM's threads ({@code ThreadMXBean.dumpAllThreads}, taken at a
 * safepoint), the emulated monitors (each read under its own lock, just after), the stubs whose remote monitors
 * local classes enter, and the threads in outgoing calls. From them: every thread's class where dthreads knows
 * it, and the {@link WaitEdge}s of the site:
 * <ul>
 *   <li>emulated: each entrant of an owned emulated monitor waits for the owner's class (BLOCKED, as the JVM
 *       would say for its own monitor);</li>
 *   <li>native and lock: a thread the JVM reports blocked on a monitor, or parked on a
 *       {@code java.util.concurrent} lock with an owner, waits for the owner thread's class;</li>
 *   <li>remote: a class entering a remote object's monitor through its stub waits for whoever holds it at the
 *       object's site; the owner is unknown here, the edge at that site closes a cycle.</li>
 * </ul>
 * Immutable once built; building takes no lock that application code can hold.
 */
final class SiteSnapshot {
    private static final String MONITOR_CLASS = "org.dthreads.monitor.internal.Monitor";
    private static final int EDGE_FRAMES = 6;

    final int siteId;
    final long pid;
    final String host;
    final ThreadInfo[] threads;
    final List<Object[]> emulated;
    final List<Object[]> remote;
    final Map<Thread, long[]> suspended;
    /** Thread id to the class it acts for, where dthreads knows it. */
    final Map<Long, Long> classOf = new HashMap<>();
    final Map<Long, ThreadInfo> infoById = new HashMap<>();
    final List<WaitEdge> edges = new ArrayList<>();

    private SiteSnapshot() {
        siteId = KernelLink.siteId();
        pid = ProcessHandle.current().pid();
        host = Host.NAME;
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        threads = mx.dumpAllThreads(mx.isObjectMonitorUsageSupported(), mx.isSynchronizerUsageSupported());
        emulated = DiagnosticRows.emulatedRows();
        remote = DiagnosticRows.remoteRows();
        suspended = DiagnosticRows.suspendedThreads();
        for (ThreadInfo t : threads) {
            infoById.put(t.getThreadId(), t);
        }
        learnClasses();
        emulatedEdges();
        nativeEdges();
        remoteEdges();
    }

    static SiteSnapshot take() {
        return new SiteSnapshot();
    }

    private void learnClasses() {
        suspended.forEach((t, v) -> classOf.put(t.getId(), v[0]));
        for (Object[] r : emulated) {
            Thread owner = (Thread) r[3];
            if (owner != null) {
                classOf.put(owner.getId(), (Long) r[2]);
            }
            learn((Thread[]) r[7], (long[]) r[8]);
            learn((Thread[]) r[10], (long[]) r[11]);
        }
    }

    private void learn(Thread[] ts, long[] classes) {
        for (int i = 0; i < ts.length; i++) {
            classOf.put(ts[i].getId(), classes[i]);
        }
    }

    private long classOf(long threadId) {
        return classOf.getOrDefault(threadId, ThreadClass.NONE);
    }

    private void emulatedEdges() {
        for (Object[] r : emulated) {
            long ownerClass = (Long) r[2];
            if (ownerClass == ThreadClass.NONE) {
                continue; // free now: its entrants are about to get it
            }
            Thread owner = (Thread) r[3];
            String peer = (String) r[5];
            Thread[] ts = (Thread[]) r[7];
            long[] classes = (long[]) r[8];
            boolean[] orphans = (boolean[]) r[9];
            for (int i = 0; i < ts.length; i++) {
                edges.add(new WaitEdge(siteId, pid, host, classes[i], ts[i].getId(), ts[i].getName(), "BLOCKED",
                        "emulated", (String) r[1], (Integer) r[0], ownerClass, owner == null ? -1 : owner.getId(),
                        owner == null ? (String) r[4] : describe(owner), peer == null ? "" : peer,
                        orphans[i] || classes[i] == ownerClass, frames(ts[i])));
            }
        }
    }

    /**
     * The classes that own an emulated monitor here through a thread that is not in an outgoing call: they run
     * here (a deadlock probe that reaches one of them, not blocked here, stops: it is not blocked anywhere).
     */
    java.util.Set<Long> runningOwnerClasses() {
        java.util.Set<Long> out = new java.util.HashSet<>();
        for (Object[] r : emulated) {
            Thread owner = (Thread) r[3];
            if (owner != null && !suspended.containsKey(owner)) {
                out.add((Long) r[2]);
            }
        }
        return out;
    }

    /** The owning thread, and whether it is away in an outgoing remote call (its class runs elsewhere). */
    private String describe(Thread owner) {
        return "thread \"" + owner.getName() + "\"" + (suspended.containsKey(owner) ? ", in an outgoing remote call" : "");
    }

    private void nativeEdges() {
        for (ThreadInfo t : threads) {
            LockInfo lock = t.getLockInfo();
            long ownerId = t.getLockOwnerId();
            if (lock == null || ownerId < 0 || MONITOR_CLASS.equals(lock.getClassName())) {
                continue;
            }
            boolean monitor = t.getThreadState() == Thread.State.BLOCKED;
            long waiter = classOf(t.getThreadId());
            long owner = classOf(ownerId);
            edges.add(new WaitEdge(siteId, pid, host, waiter, t.getThreadId(), t.getThreadName(),
                    t.getThreadState().name(), monitor ? "native" : "lock", lock.getClassName(),
                    lock.getIdentityHashCode(), owner, ownerId, "thread \"" + t.getLockOwnerName() + "\"", "",
                    waiter != ThreadClass.NONE && waiter == owner, frames(t.getThreadId())));
        }
    }

    private void remoteEdges() {
        for (Object[] r : remote) {
            int hash = (Integer) r[0];
            for (long cls : (long[]) r[3]) {
                Thread thread = null;
                for (Map.Entry<Thread, long[]> s : suspended.entrySet()) {
                    if (s.getValue()[0] == cls && s.getValue()[1] == hash) {
                        thread = s.getKey();
                    }
                }
                String where = (String) r[1];
                edges.add(new WaitEdge(siteId, pid, host, cls, thread == null ? -1 : thread.getId(),
                        thread == null ? "?" : thread.getName(), "BLOCKED", "remote", where, hash, ThreadClass.NONE, -1,
                        "", where, false, thread == null ? List.of() : frames(thread)));
            }
        }
    }

    /** The thread's top frames as jstack writes them, without the runtime's own (park, queue) frames. */
    List<String> frames(long threadId) {
        ThreadInfo t = infoById.get(threadId);
        return t == null ? List.of() : applicationFrames(t.getStackTrace());
    }

    /**
     * {@link #frames(long)} of a thread dthreads holds: one missing from the JVM's dump, which lists no virtual
     * threads (JDK 21+), gives its own stack, read now.
     */
    List<String> frames(Thread thread) {
        ThreadInfo t = infoById.get(thread.getId());
        return applicationFrames(t != null ? t.getStackTrace() : thread.getStackTrace());
    }

    /**
     * The top {@value #EDGE_FRAMES} frames below the runtime's: a thread blocked on an emulated monitor runs
     * runtime code at the top of its stack, and whatever JDK code that calls (parking, a JFR event type's
     * first registration, class loading) is dropped with it. So the frames of one blocked thread are the
     * same in every snapshot, which the watch's confirmation and every site's report compare as text.
     */
    static List<String> applicationFrames(StackTraceElement[] stack) {
        int start = 0;
        while (start < stack.length && !isRuntimeFrame(stack[start])) {
            start++;
        }
        if (start == stack.length) {
            start = 0; // not in the runtime: the whole stack is the application's
        }
        while (start < stack.length && isRuntimeFrame(stack[start])) {
            start++;
        }
        List<String> out = new ArrayList<>();
        for (int i = start; i < stack.length && out.size() < EDGE_FRAMES; i++) {
            StackTraceElement f = stack[i];
            if (!isRuntimeFrame(f) && !f.getClassName().startsWith("jdk.internal.reflect.")
                    && !f.getClassName().startsWith("java.lang.invoke.")) {
                out.add(frame(f));
            }
        }
        return out;
    }

    static boolean isRuntimeFrame(StackTraceElement f) {
        String c = f.getClassName();
        return c.startsWith("org.dthreads.monitor.internal.") || c.equals("org.dthreads.monitor.Monitors")
                || c.equals("java.util.concurrent.locks.LockSupport") || c.equals("jdk.internal.misc.Unsafe")
                || isVirtualThreadPark(c, f.getMethodName());
    }

    /** The frames under {@code LockSupport.park*} of a virtual thread (JDK 21+), which parks by unmounting. */
    private static boolean isVirtualThreadPark(String c, String method) {
        return c.equals("java.lang.VirtualThread") && method.startsWith("park")
                || c.equals("java.lang.System$1") && method.equals("parkVirtualThread")
                || c.equals("jdk.internal.misc.VirtualThreads");
    }

    static String frame(StackTraceElement f) {
        String where = f.isNativeMethod() ? "Native Method"
                : f.getFileName() == null ? "Unknown Source"
                : f.getLineNumber() >= 0 ? f.getFileName() + ":" + f.getLineNumber() : f.getFileName();
        return f.getClassName() + "." + f.getMethodName() + "(" + where + ")";
    }

    /** The host name, looked up once (a slow resolver must not slow every snapshot). */
    private static final class Host {
        static final String NAME = lookUp();

        private static String lookUp() {
            String env = System.getenv("HOSTNAME");
            if (env != null && !env.isBlank()) {
                return env;
            }
            try {
                return java.net.InetAddress.getLocalHost().getHostName();
            } catch (java.io.IOException | RuntimeException e) {
                return "localhost";
            }
        }
    }
}
