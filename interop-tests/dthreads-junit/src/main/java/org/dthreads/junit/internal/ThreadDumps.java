package org.dthreads.junit.internal;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Thread dumps: in-process via {@link ThreadMXBean} with every frame, locked monitors and owned
 * synchronizers (unlike {@link ThreadInfo#toString()}, which stops at 8 frames), and out-of-process
 * via {@code jcmd <pid> Thread.print}, falling back to {@code jstack}.
 */
public final class ThreadDumps {

    private ThreadDumps() {}

    /** A dump of the calling JVM. Takes no application locks. */
    public static String dumpThisJvm() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        ThreadInfo[] infos = mx.dumpAllThreads(mx.isObjectMonitorUsageSupported(), mx.isSynchronizerUsageSupported());
        StringBuilder sb = new StringBuilder();
        sb.append("Thread dump of pid ").append(ProcessHandle.current().pid()).append(" at ").append(Instant.now())
                .append(" (").append(infos.length).append(" threads)\n\n");
        for (ThreadInfo ti : infos) {
            format(ti, sb);
        }
        long[] dead = mx.findDeadlockedThreads();
        sb.append("JVM-local deadlock (ThreadMXBean.findDeadlockedThreads): ");
        if (dead == null) {
            sb.append("none (a distributed deadlock spans JVMs and is not visible here)\n");
        } else {
            List<String> names = new ArrayList<>();
            for (ThreadInfo ti : mx.getThreadInfo(dead)) {
                if (ti != null) {
                    names.add('"' + ti.getThreadName() + '"');
                }
            }
            sb.append(String.join(", ", names)).append('\n');
        }
        return sb.toString();
    }

    static void format(ThreadInfo ti, StringBuilder sb) {
        sb.append('"').append(ti.getThreadName()).append("\" #").append(ti.getThreadId());
        if (ti.isDaemon()) {
            sb.append(" daemon");
        }
        sb.append(" prio=").append(ti.getPriority()).append(' ').append(ti.getThreadState());
        if (ti.getLockName() != null) {
            sb.append(" on ").append(ti.getLockName());
        }
        if (ti.getLockOwnerName() != null) {
            sb.append(" owned by \"").append(ti.getLockOwnerName()).append("\" #").append(ti.getLockOwnerId());
        }
        if (ti.isSuspended()) {
            sb.append(" (suspended)");
        }
        if (ti.isInNative()) {
            sb.append(" (in native)");
        }
        sb.append('\n');
        StackTraceElement[] stack = ti.getStackTrace();
        MonitorInfo[] monitors = ti.getLockedMonitors();
        for (int i = 0; i < stack.length; i++) {
            sb.append("\tat ").append(stack[i]).append('\n');
            if (i == 0 && ti.getLockInfo() != null) {
                String verb = switch (ti.getThreadState()) {
                    case BLOCKED -> "waiting to lock ";
                    case WAITING, TIMED_WAITING -> "waiting on ";
                    default -> "parked on ";
                };
                sb.append("\t- ").append(verb).append(ti.getLockInfo()).append('\n');
            }
            for (MonitorInfo mi : monitors) {
                if (mi.getLockedStackDepth() == i) {
                    sb.append("\t- locked ").append(mi).append('\n');
                }
            }
        }
        LockInfo[] syncs = ti.getLockedSynchronizers();
        if (syncs.length > 0) {
            sb.append("\n\tLocked ownable synchronizers:\n");
            for (LockInfo li : syncs) {
                sb.append("\t- ").append(li).append('\n');
            }
        }
        sb.append('\n');
    }

    /**
     * A dump of another JVM by attaching to it: {@code jcmd <pid> Thread.print -l}, else
     * {@code jstack -l <pid>}, using the tools next to {@code javaExecutable} first and those of the
     * test JVM second. Returns a description of every failure when nothing worked.
     */
    public static String dumpExternal(long pid, Path javaExecutable, Duration bound) {
        List<Path> binDirs = new ArrayList<>();
        if (javaExecutable != null && javaExecutable.getParent() != null) {
            binDirs.add(javaExecutable.getParent());
        }
        Path own = Path.of(System.getProperty("java.home"), "bin");
        if (!binDirs.contains(own)) {
            binDirs.add(own);
        }
        StringBuilder failures = new StringBuilder();
        for (Path bin : binDirs) {
            for (List<String> cmd : List.of(
                    List.of(bin.resolve("jcmd").toString(), Long.toString(pid), "Thread.print", "-l"),
                    List.of(bin.resolve("jstack").toString(), "-l", Long.toString(pid)))) {
                if (!Files.isExecutable(Path.of(cmd.get(0)))) {
                    continue;
                }
                Processes.Result r = Processes.run(bound, cmd);
                if (r.ok() && r.output().contains("\"")) {
                    return "(taken from outside with " + String.join(" ", cmd) + ")\n" + r.output();
                }
                failures.append(String.join(" ", cmd)).append(": ")
                        .append(r.timedOut() ? "timed out after " + bound.toMillis() + " ms" : "exit " + r.exitCode())
                        .append(' ').append(r.output().strip()).append('\n');
            }
        }
        return "no thread dump: the site did not answer and attaching failed:\n" + failures;
    }
}
