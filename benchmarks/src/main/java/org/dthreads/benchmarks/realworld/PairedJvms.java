package org.dthreads.benchmarks.realworld;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Plain JVMs and agent JVMs interleaved, for a noisy shared machine: {@code pairs} times a plain JVM and
 * an agent JVM (which goes first alternates), each running one {@link RealWorkload} through
 * {@link WorkloadJvm} with the same flags plus {@code -Xlog:gc}. Per JVM: the median timed round
 * (measured inside it), its wall time from start to exit (JVM and agent start-up, class rewriting,
 * warm-up included) and its GC pause total; the report gives the median over the JVMs of each kind,
 * the ratio agent/plain of those medians, and the median of the per-pair ratios of the timed round.
 * Every JVM must compute the same digest and exit normally within {@link #JVM_BOUND_SECONDS} (a hung one is
 * killed), else the run fails (exit status 1).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar org.dthreads.benchmarks.realworld.PairedJvms \
 *     derby|h2|rhino|xz|startup-h2|startup-derby|memory [pairs=5] [size] [warmup] [rounds] \
 *     [--agent=dthreads-agent/target/dthreads-agent.jar] [--jvm=-Xflag ...]
 *     [--base-agent=jar] [--base-jvm=-Dflag ...] [--agent-jvm=-Dflag ...] [--csv=file]
 * </pre>
 * An A/B of two agent builds or settings, interleaved the same way: {@code --base-agent} gives the "plain" JVMs an
 * agent too, {@code --base-jvm} and {@code --agent-jvm} add flags to one side only (e.g.
 * {@code --base-agent=a.jar --agent-jvm=-Ddthreads.monitor.thin=true --base-jvm=-Ddthreads.monitor.thin=false}).
 * {@code --csv} appends one row per JVM to a file (header first if the file is new), for
 * {@code benchmarks/realworld_chart.py}.
 */
public final class PairedJvms {

    /** The one package of the benchmarks the agent rewrites (see {@code app.LockedCell}). */
    static final String INCLUDE = "-Ddthreads.include=org.dthreads.benchmarks.realworld.app.";
    private static final Pattern GC_PAUSE = Pattern.compile("Pause.*\\s(\\d+(?:\\.\\d+)?)ms\\s*$");
    private static final Pattern RESULT = Pattern.compile(
            "result digest=(-?\\d+) medianMs=([\\d.]+) gcMsTimed=(\\d+) gcCountTimed=(\\d+)(?: cpuMs=([\\d.]+))?"
                    + "(?: allocMb=([\\d.]+) metaspaceMb=([\\d.]+))?");

    /** What one child JVM reported. */
    record Run(boolean agent, boolean ok, long digest, double roundMs, double wallMs, double gcPauseMs,
            int gcPauses, long gcMsTimed, int gcCountTimed, double roundCpuMs, double allocMb, double metaspaceMb,
            int metadataCycles, String failure) {}

    /** How long one child JVM may run (a Derby JVM takes about 10 s); {@code -Ddthreads.paired.jvmBoundSeconds}. */
    static final long JVM_BOUND_SECONDS = Long.getLong("dthreads.paired.jvmBoundSeconds", 600);

    private PairedJvms() {}

    public static void main(String[] args) throws Exception {
        List<String> positional = new ArrayList<>();
        List<String> extraJvmFlags = new ArrayList<>();
        List<String> baseFlags = new ArrayList<>();
        List<String> agentFlags = new ArrayList<>();
        Path agent = Path.of("dthreads-agent/target/dthreads-agent.jar");
        Path baseAgent = null;
        Path csv = null;
        for (String a : args) {
            if (a.startsWith("--csv=")) {
                csv = Path.of(a.substring("--csv=".length()));
            } else if (a.startsWith("--agent=")) {
                agent = Path.of(a.substring("--agent=".length()));
            } else if (a.startsWith("--base-agent=")) {
                baseAgent = Path.of(a.substring("--base-agent=".length()));
            } else if (a.startsWith("--base-jvm=")) {
                baseFlags.add(a.substring("--base-jvm=".length()));
            } else if (a.startsWith("--agent-jvm=")) {
                agentFlags.add(a.substring("--agent-jvm=".length()));
            } else if (a.startsWith("--jvm=")) {
                extraJvmFlags.add(a.substring("--jvm=".length()));
            } else {
                positional.add(a);
            }
        }
        if (positional.isEmpty()) {
            System.err.println("usage: PairedJvms derby|h2|rhino|xz|startup-h2|startup-derby|memory [pairs] [size] [warmup] [rounds]"
                    + " [--agent=jar] [--jvm=flag]... [--base-agent=jar] [--base-jvm=flag]... [--agent-jvm=flag]... [--csv=file]");
            System.exit(2);
        }
        if (!Files.isRegularFile(agent)) {
            throw new IllegalStateException(agent.toAbsolutePath() + " missing: run from the repository root after "
                    + "./mvnw -B -o -q -pl dthreads-agent -am package -DskipTests");
        }
        RealWorkload workload = RealWorkload.named(positional.get(0));
        int pairs = positional.size() > 1 ? Integer.parseInt(positional.get(1)) : 5;
        int size = positional.size() > 2 ? Integer.parseInt(positional.get(2)) : workload.defaultSize;
        int warmup = positional.size() > 3 ? Integer.parseInt(positional.get(3)) : workload.warmupRounds;
        int rounds = positional.size() > 4 ? Integer.parseInt(positional.get(4)) : workload.timedRounds;
        if (baseAgent != null || !baseFlags.isEmpty() || !agentFlags.isEmpty()) {
            System.out.println("A/B: the 'plain' JVMs run " + (baseAgent == null ? "no agent" : "agent " + baseAgent)
                    + " " + baseFlags + ", the 'agent' JVMs agent " + agent + " " + agentFlags);
        }
        System.out.printf(Locale.ROOT, "%s: %d plain + %d agent JVMs interleaved; size %d, %d warm-up + %d timed rounds; "
                + "JDK %s, %d processors, load average %.2f%n", workload.name().toLowerCase(Locale.ROOT), pairs, pairs,
                size, warmup, rounds, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        List<Run> plain = new ArrayList<>();
        List<Run> withAgent = new ArrayList<>();
        for (int p = 0; p < pairs; p++) {
            for (int k = 0; k < 2; k++) {
                boolean useAgent = (p + k) % 2 == 1;
                List<String> flags = new ArrayList<>(extraJvmFlags);
                flags.addAll(useAgent ? agentFlags : baseFlags);
                Run run = runJvm(workload, useAgent ? agent : baseAgent, flags, size, warmup, rounds);
                (useAgent ? withAgent : plain).add(run);
                if (csv != null) {
                    appendCsv(csv, workload, p + 1, run);
                }
                System.out.printf(Locale.ROOT, "  #%d %-5s %s%n", p + 1, useAgent ? "agent" : "plain", run.ok()
                        ? String.format(Locale.ROOT, "round %.1f ms, wall %.0f ms, GC %d pauses %.1f ms, digest %d",
                                run.roundMs(), run.wallMs(), run.gcPauses(), run.gcPauseMs(), run.digest())
                        : String.format(Locale.ROOT, "FAILED (wall %.0f ms, GC %d pauses %.1f ms): %s",
                                run.wallMs(), run.gcPauses(), run.gcPauseMs(), run.failure()));
            }
        }
        System.exit(report(plain, withAgent) ? 0 : 1);
    }

    /** Prints the side-by-side table; returns whether every JVM passed with one digest. */
    static boolean report(List<Run> plain, List<Run> withAgent) {
        List<Run> all = new ArrayList<>(plain);
        all.addAll(withAgent);
        long failed = all.stream().filter(r -> !r.ok()).count();
        long digests = all.stream().filter(Run::ok).mapToLong(Run::digest).distinct().count();
        System.out.println();
        System.out.println("| measure (median of JVMs) | plain | agent | agent/plain |");
        System.out.println("| --- | --- | --- | --- |");
        row("timed round, ms (in JVM)", plain, withAgent, Run::roundMs);
        row("process CPU per timed round (mean of the rounds), ms", plain, withAgent, Run::roundCpuMs);
        row("whole JVM wall time, ms", plain, withAgent, Run::wallMs);
        row("GC pause total, ms (-Xlog:gc)", plain, withAgent, Run::gcPauseMs);
        row("GC pauses, count", plain, withAgent, r -> r.gcPauses());
        row("GC time in timed rounds, ms (JMX)", plain, withAgent, r -> r.gcMsTimed());
        row("collections in timed rounds (JMX)", plain, withAgent, r -> r.gcCountTimed());
        row("heap allocated per timed round, MB", plain, withAgent, Run::allocMb);
        row("metaspace used after the last round, MB", plain, withAgent, Run::metaspaceMb);
        row("concurrent cycles started by the metaspace threshold", plain, withAgent, r -> r.metadataCycles());
        pairedRatios("timed round", plain, withAgent, Run::roundMs, failed);
        pairedRatios("process CPU per timed round", plain, withAgent, Run::roundCpuMs, failed);
        boolean pass = failed == 0 && digests == 1;
        System.out.println(pass ? "PASS: every JVM exited normally with the same digest"
                : "FAIL: " + failed + " JVM(s) failed, " + digests + " distinct digest(s)");
        return pass;
    }

    /** The median of agent/plain per pair in which both JVMs passed (a failed JVM costs its pair, not the data). */
    private static void pairedRatios(String measure, List<Run> plain, List<Run> withAgent,
            java.util.function.ToDoubleFunction<Run> f, long failed) {
        double[] paired = java.util.stream.IntStream.range(0, Math.min(plain.size(), withAgent.size()))
                .filter(i -> plain.get(i).ok() && withAgent.get(i).ok() && f.applyAsDouble(plain.get(i)) > 0)
                .mapToDouble(i -> f.applyAsDouble(withAgent.get(i)) / f.applyAsDouble(plain.get(i))).sorted().toArray();
        int n = paired.length;
        if (n > 0) {
            System.out.printf(Locale.ROOT, "%s, per-pair ratio agent/plain: median %.3f (min %.3f, max %.3f)%s%n",
                    measure, paired[n / 2], paired[0], paired[n - 1],
                    failed == 0 ? "" : " of the " + n + " pairs that passed");
        }
    }

    private static void row(String measure, List<Run> plain, List<Run> withAgent, java.util.function.ToDoubleFunction<Run> f) {
        double p = median(plain, f);
        double a = median(withAgent, f);
        System.out.printf(Locale.ROOT, "| %s | %s | %s | %s |%n", measure, format(p), format(a),
                p > 0 && !Double.isNaN(a) ? String.format(Locale.ROOT, "%.2fx", a / p) : "-");
    }

    private static String format(double v) {
        return Double.isNaN(v) ? "- (failed)" : String.format(Locale.ROOT, "%.1f", v);
    }

    static double median(List<Run> runs, java.util.function.ToDoubleFunction<Run> f) {
        double[] v = runs.stream().filter(Run::ok).mapToDouble(f).sorted().toArray();
        return v.length == 0 ? Double.NaN : v[v.length / 2];
    }

    static Run runJvm(RealWorkload workload, Path agent, List<String> extraJvmFlags, int size, int warmup, int rounds)
            throws IOException, InterruptedException {
        Path gcLog = Files.createTempFile("dthreads-paired-gc", ".log");
        Path err = Files.createTempFile("dthreads-paired-err", ".txt");
        Path stdout = Files.createTempFile("dthreads-paired-out", ".txt");
        try {
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            if (agent != null) {
                cmd.add("-javaagent:" + agent);
            }
            cmd.add(INCLUDE);
            cmd.addAll(workload.jvmFlags);
            cmd.addAll(extraJvmFlags);
            cmd.add("-Xlog:gc:file=" + gcLog);
            cmd.add("-cp");
            cmd.add(System.getProperty("java.class.path")); // the benchmarks jar, or a test's class path
            cmd.add(WorkloadJvm.class.getName());
            cmd.add(workload.name());
            cmd.add(Integer.toString(size));
            cmd.add(Integer.toString(warmup));
            cmd.add(Integer.toString(rounds));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(err.toFile()).redirectOutput(stdout.toFile());
            long t0 = System.nanoTime();
            Process process = pb.start();
            boolean exited = process.waitFor(JVM_BOUND_SECONDS, TimeUnit.SECONDS);
            if (!exited) {
                // a hung child fails its run instead of the whole benchmark: killed, reported like a non-zero exit
                process.destroyForcibly().waitFor();
            }
            int status = process.exitValue();
            double wallMs = (System.nanoTime() - t0) / 1e6;
            String out = Files.readString(stdout, StandardCharsets.UTF_8);
            double[] gc = gcPauses(Files.readAllLines(gcLog));
            out.lines().filter(l -> l.startsWith("note ")).forEach(l -> System.out.println("    " + l));
            Matcher m = RESULT.matcher(out);
            if (status != 0 || !m.find()) {
                List<String> errLines = Files.readAllLines(err).stream()
                        .filter(l -> !l.startsWith("\tat ") && !l.startsWith("\t...")).toList();
                String tail = String.join(" | ", errLines.subList(Math.max(0, errLines.size() - 5), errLines.size()));
                return new Run(agent != null, false, 0, 0, wallMs, gc[0], (int) gc[1], 0, 0, 0, 0, 0, (int) gc[2],
                        (exited ? "exit " + status : "killed after " + JVM_BOUND_SECONDS + " s (hung)") + "; "
                                + out.lines().filter(l -> l.startsWith("error")).findFirst().orElse("")
                                + " stderr: " + tail);
            }
            return new Run(agent != null, true, Long.parseLong(m.group(1)), Double.parseDouble(m.group(2)), wallMs,
                    gc[0], (int) gc[1], Long.parseLong(m.group(3)), Integer.parseInt(m.group(4)), optional(m.group(5)),
                    optional(m.group(6)), optional(m.group(7)), (int) gc[2], null);
        } finally {
            Files.deleteIfExists(gcLog);
            Files.deleteIfExists(err);
            Files.deleteIfExists(stdout);
        }
    }

    static final String CSV_HEADER = "workload,pair,side,ok,round_ms,cpu_ms,wall_ms,gc_pause_ms,gc_pauses,"
            + "gc_ms_timed,metaspace_mb,metadata_cycles";

    /** One row per JVM; a failed JVM is kept (ok=false) so a chart can tell a lost pair from a missing one. */
    static void appendCsv(Path csv, RealWorkload workload, int pair, Run run) throws IOException {
        StringBuilder row = new StringBuilder();
        if (!Files.exists(csv)) {
            row.append(CSV_HEADER).append('\n');
        }
        row.append(String.format(Locale.ROOT, "%s,%d,%s,%b,%.3f,%.3f,%.1f,%.1f,%d,%d,%.2f,%d%n",
                workload.name().toLowerCase(Locale.ROOT), pair, run.agent() ? "agent" : "plain", run.ok(), run.roundMs(),
                run.roundCpuMs(), run.wallMs(), run.gcPauseMs(), run.gcPauses(), run.gcMsTimed(), run.metaspaceMb(),
                run.metadataCycles()));
        Files.writeString(csv, row, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
    }

    private static double optional(String number) {
        return number == null ? 0 : Double.parseDouble(number);
    }

    /**
     * {total pause ms, pauses, pauses that started a concurrent cycle for the metaspace threshold} of the
     * stop-the-world pauses in a {@code -Xlog:gc} log.
     */
    static double[] gcPauses(List<String> gcLogLines) {
        double ms = 0;
        int count = 0;
        int metadataCycles = 0;
        for (String line : gcLogLines) {
            Matcher m = GC_PAUSE.matcher(line);
            if (m.find()) {
                ms += Double.parseDouble(m.group(1));
                count++;
                if (line.contains("(Metadata GC Threshold)")) {
                    metadataCycles++;
                }
            }
        }
        return new double[] {ms, count, metadataCycles};
    }
}
