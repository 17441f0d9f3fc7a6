package org.dthreads.monitor.internal.diagnostics;

import java.lang.management.LockInfo;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.dthreads.ThreadClass;
import org.dthreads.monitor.internal.ThreadKinds;

/**
 * A thread dump that reads like {@code jstack -l}'s, with the emulated monitors shown the way the JVM shows its
 * own: {@code - waiting to lock <0x...> (a com.acme.Node)} under a blocked thread's top frame, with the owning
 * class, {@code - locked <0x...> (a com.acme.Node)} for every emulated monitor a thread acts for, and the state
 * the JVM would report ({@code BLOCKED} for an entrant, which the JVM sees parked). Then this site's deadlocks.
 * Stateless.
 */
final class ThreadDumpText {

    private ThreadDumpText() {}

    static String of(SiteSnapshot s, List<List<WaitEdge>> cycles) {
        Map<Long, List<Object[]>> heldBy = new HashMap<>();
        List<Object[]> heldByLeases = new ArrayList<>();
        Map<Long, Object[]> enteringBy = new HashMap<>();
        Map<Long, Object[]> waitingBy = new HashMap<>();
        for (Object[] r : s.emulated) {
            Thread owner = (Thread) r[3];
            if (owner != null) {
                heldBy.computeIfAbsent(owner.getId(), k -> new ArrayList<>()).add(r);
            } else if ((Long) r[2] != ThreadClass.NONE) {
                heldByLeases.add(r);
            }
            for (Thread t : (Thread[]) r[7]) {
                enteringBy.put(t.getId(), r);
            }
            for (Thread t : (Thread[]) r[10]) {
                waitingBy.put(t.getId(), r);
            }
        }
        StringBuilder sb = new StringBuilder();
        sb.append("dthreads thread dump of site ").append(String.format("%08x", s.siteId)).append(" (pid ")
                .append(s.pid).append(" on ").append(s.host).append(") at ").append(Instant.now()).append('\n');
        sb.append("Emulated monitors are shown as the JVM shows its own, with the thread class that owns them.\n\n");
        for (ThreadInfo t : s.threads) {
            thread(sb, s, Dumped.of(t), heldBy.getOrDefault(t.getThreadId(), List.of()), enteringBy.get(t.getThreadId()),
                    waitingBy.get(t.getThreadId()));
        }
        Map<Long, Thread> unlisted = unlisted(s);
        if (!unlisted.isEmpty()) {
            sb.append("Threads the JVM's dump does not list (virtual threads) that hold, enter or wait on emulated\n"
                    + "monitors, or are in outgoing remote calls:\n\n");
            for (Thread t : unlisted.values()) {
                thread(sb, s, Dumped.of(t), heldBy.getOrDefault(t.getId(), List.of()), enteringBy.get(t.getId()),
                        waitingBy.get(t.getId()));
            }
        }
        if (!heldByLeases.isEmpty()) {
            sb.append("Emulated monitors held by remote classes (leases):\n");
            for (Object[] r : heldByLeases) {
                sb.append("\t- locked ").append(monitor(r)).append(" by class ").append(ThreadClass.format((Long) r[2]))
                        .append(" (").append(r[4]).append(")\n");
            }
            sb.append('\n');
        }
        if (cycles.isEmpty()) {
            sb.append("No dthreads deadlock found at this site (emulated, native and lock edges; a cycle through\n"
                    + "other sites needs their edges too: ./dthreads deadlocks PID|HOST:PORT...).\n");
        } else {
            for (List<WaitEdge> c : cycles) {
                sb.append(Cycles.format(c, Map.of())).append('\n');
            }
            sb.append("Found ").append(cycles.size()).append(" dthreads deadlock(s).\n");
        }
        return sb.toString();
    }

    private static void thread(StringBuilder sb, SiteSnapshot s, Dumped t, List<Object[]> held, Object[] entering,
            Object[] waiting) {
        long cls = s.classOf.getOrDefault(t.id(), ThreadClass.NONE);
        sb.append('"').append(t.name()).append("\" #").append(t.id());
        if (t.virtual()) {
            sb.append(" virtual");
        }
        if (t.daemon()) {
            sb.append(" daemon");
        }
        if (cls != ThreadClass.NONE) {
            sb.append(" class=").append(ThreadClass.format(cls));
        }
        sb.append('\n');
        String state = t.state().name();
        if (entering != null) {
            sb.append("   java.lang.Thread.State: BLOCKED (on an emulated monitor; the JVM sees ").append(state)
                    .append(")\n");
        } else if (waiting != null) {
            sb.append("   java.lang.Thread.State: ").append(state).append(" (in Object.wait() on an emulated monitor)\n");
        } else {
            sb.append("   java.lang.Thread.State: ").append(state).append('\n');
        }
        for (Map.Entry<Thread, long[]> e : s.suspended.entrySet()) {
            if (e.getKey().getId() == t.id()) {
                sb.append("\t- in an outgoing remote call, acting for class ")
                        .append(ThreadClass.format(e.getValue()[0])).append('\n');
            }
        }
        for (WaitEdge e : s.edges) {
            if (e.kind().equals("remote") && e.threadId() == t.id()) {
                sb.append("\t- waiting to lock ").append(e.monitor()).append(" [remote monitor: owned at its site]\n");
            }
        }
        StackTraceElement[] frames = t.frames();
        MonitorInfo[] nativeLocked = t.info() == null ? new MonitorInfo[0] : t.info().getLockedMonitors();
        boolean first = true;
        for (int depth = 0; depth < frames.length; depth++) {
            StackTraceElement f = frames[depth];
            boolean hidden = (entering != null || waiting != null) && first && SiteSnapshot.isRuntimeFrame(f);
            if (!hidden) {
                sb.append("\tat ").append(SiteSnapshot.frame(f)).append('\n');
                if (first) {
                    firstFrameLines(sb, s, t.info(), entering, waiting);
                    first = false;
                }
            }
            for (MonitorInfo m : nativeLocked) {
                if (m.getLockedStackDepth() == depth) {
                    sb.append("\t- locked ").append(monitor(m)).append('\n');
                }
            }
        }
        for (Object[] r : held) {
            sb.append("\t- locked ").append(monitor(r)).append(" [emulated] by class ")
                    .append(ThreadClass.format((Long) r[2])).append(", depth ").append(r[6]).append('\n');
        }
        LockInfo[] synchronizers = t.info() == null ? new LockInfo[0] : t.info().getLockedSynchronizers();
        if (synchronizers.length > 0) {
            sb.append("\n   Locked ownable synchronizers:\n");
            for (LockInfo l : synchronizers) {
                sb.append("\t- ").append(monitor(l)).append('\n');
            }
        }
        sb.append('\n');
    }

    /** The lines under a thread's top frame; {@code t} is null for a thread the JVM's dump does not list. */
    private static void firstFrameLines(StringBuilder sb, SiteSnapshot s, ThreadInfo t, Object[] entering,
            Object[] waiting) {
        if (entering != null) {
            sb.append("\t- waiting to lock ").append(monitor(entering));
            long owner = (Long) entering[2];
            if (owner == ThreadClass.NONE) {
                sb.append(" [emulated] (free: about to be entered)");
            } else {
                Thread ownerThread = (Thread) entering[3];
                sb.append(" [emulated] owned by class ").append(ThreadClass.format(owner)).append(" (")
                        .append(ownerThread == null ? entering[4] : "thread \"" + ownerThread.getName() + "\"")
                        .append(')');
            }
            sb.append('\n');
        } else if (waiting != null) {
            sb.append("\t- waiting on ").append(monitor(waiting)).append(" [emulated]\n");
        } else if (t != null && t.getLockInfo() != null && !t.getLockInfo().getClassName().startsWith("org.dthreads.")) {
            StackTraceElement[] frames = t.getStackTrace();
            boolean inWait = frames.length > 0 && frames[0].getClassName().equals("java.lang.Object")
                    && frames[0].getMethodName().equals("wait");
            String verb = t.getThreadState() == Thread.State.BLOCKED ? "waiting to lock "
                    : inWait ? "waiting on " : "parking to wait for  ";
            sb.append("\t- ").append(verb).append(monitor(t.getLockInfo()));
            if (t.getLockOwnerId() >= 0) {
                long owner = s.classOf.getOrDefault(t.getLockOwnerId(), ThreadClass.NONE);
                sb.append(" owned by \"").append(t.getLockOwnerName()).append("\" #").append(t.getLockOwnerId());
                if (owner != ThreadClass.NONE) {
                    sb.append(" of class ").append(ThreadClass.format(owner));
                }
            }
            sb.append('\n');
        }
    }

    /**
     * The threads dthreads reports (holders, entrants and waiters of emulated monitors, threads in outgoing calls)
     * that the JVM's dump does not list: on JDK 21+ its virtual threads, which {@code dumpAllThreads} leaves out.
     */
    private static Map<Long, Thread> unlisted(SiteSnapshot s) {
        Map<Long, Thread> out = new LinkedHashMap<>();
        java.util.function.Consumer<Thread> note = t -> {
            if (t != null && !s.infoById.containsKey(t.getId())) {
                out.putIfAbsent(t.getId(), t);
            }
        };
        for (Object[] r : s.emulated) {
            note.accept((Thread) r[3]);
            Arrays.stream((Thread[]) r[7]).forEach(note);
            Arrays.stream((Thread[]) r[10]).forEach(note);
        }
        s.suspended.keySet().forEach(note);
        return out;
    }

    /**
     * One thread as the dump prints it: from the JVM's {@link ThreadInfo} (with its native monitors and
     * synchronizers), or from the {@link Thread} itself for one the JVM's dump does not list ({@code info} null).
     */
    private record Dumped(String name, long id, boolean daemon, boolean virtual, Thread.State state,
            StackTraceElement[] frames, ThreadInfo info) {
        static Dumped of(ThreadInfo t) {
            return new Dumped(t.getThreadName(), t.getThreadId(), t.isDaemon(), false, t.getThreadState(),
                    t.getStackTrace(), t);
        }

        static Dumped of(Thread t) {
            return new Dumped(t.getName(), t.getId(), t.isDaemon(), ThreadKinds.isVirtual(t), t.getState(),
                    t.getStackTrace(), null);
        }
    }

    private static String monitor(Object[] row) {
        return String.format("<0x%08x> (a %s)", (Integer) row[0], row[1]);
    }

    private static String monitor(LockInfo l) {
        return String.format("<0x%08x> (a %s)", l.getIdentityHashCode(), l.getClassName());
    }
}
