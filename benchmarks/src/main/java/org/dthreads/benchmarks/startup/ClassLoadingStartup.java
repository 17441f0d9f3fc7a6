package org.dthreads.benchmarks.startup;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Loading every class of a large real jar, plain and under each agent jar given, interleaved (the order
 * rotates every round): {@code rounds} JVMs of each running {@link LoadAll}. Per variant the median wall time
 * and the median CPU time of the loading thread (where class rewriting runs; robust on a loaded machine,
 * where wall time mostly measures the neighbours), and both as ratios to plain; then the median over rounds of
 * each round's loading-thread CPU ratio to that round's plain JVM (paired: the load of the moment cancels).
 * Every JVM must load the same number of classes, else the run fails (exit status 1).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar org.dthreads.benchmarks.startup.ClassLoadingStartup derby|h2 [rounds=7] \
 *     dthreads-agent/target/dthreads-agent.jar [other-agent.jar ...]
 * </pre>
 * A variant may carry JVM flags after its jar, separated by spaces (one argument, quoted):
 * {@code "dthreads-agent.jar -Ddthreads.cache=/tmp/cache"}.
 */
public final class ClassLoadingStartup {

    private static final Pattern RESULT =
            Pattern.compile("loaded=(\\d+) wallMs=(\\d+) cpuMs=(\\d+) metaspaceKb=(\\d+) jvmClasses=(\\d+)");

    private ClassLoadingStartup() {}

    public static void main(String[] args) throws Exception {
        List<String> target = switch (args.length > 0 ? args[0] : "") {
            case "derby" -> List.of("org/apache/derby/", "org.apache.derby.iapi.jdbc.AutoloadedDriver",
                    "org.apache.derby.shared.common.error.StandardException", "org.apache.derby.jdbc.EmbeddedDriver");
            case "h2" -> List.of("org/h2/", "org.h2.Driver");
            default -> {
                System.err.println("usage: ClassLoadingStartup derby|h2 [rounds] [agent.jar ...]");
                System.exit(2);
                yield null;
            }
        };
        int rounds = 7;
        List<String> variants = new ArrayList<>();
        variants.add(null); // plain
        for (int i = 1; i < args.length; i++) {
            if (args[i].matches("\\d+")) {
                rounds = Integer.parseInt(args[i]);
            } else {
                variants.add(args[i]);
            }
        }
        if (variants.size() == 1) {
            variants.add("dthreads-agent/target/dthreads-agent.jar");
        }
        long[][] wall = new long[variants.size()][rounds];
        long[][] cpu = new long[variants.size()][rounds];
        long[][] metaspace = new long[variants.size()][rounds];
        long[][] jvmClasses = new long[variants.size()][rounds];
        long classes = -1;
        System.out.printf(Locale.ROOT, "%s: %d rounds, %d processors, load average %.2f%n", args[0], rounds,
                Runtime.getRuntime().availableProcessors(),
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < variants.size(); k++) {
                int v = (r + k) % variants.size();
                long[] m = run(variants.get(v), target);
                if (classes >= 0 && m[0] != classes) {
                    System.err.println("FAIL: " + m[0] + " classes loaded, another JVM loaded " + classes);
                    System.exit(1);
                }
                classes = m[0];
                wall[v][r] = m[1];
                cpu[v][r] = m[2];
                metaspace[v][r] = m[3];
                jvmClasses[v][r] = m[4];
            }
        }
        System.out.println(classes + " classes loaded in every JVM");
        double plainWall = median(wall[0]);
        double plainCpu = median(cpu[0]);
        for (int v = 0; v < variants.size(); v++) {
            double w = median(wall[v]);
            double c = median(cpu[v]);
            System.out.printf(Locale.ROOT, "%-45s loading thread cpu %6.0f ms (%.2fx)  wall %6.0f ms (%.2fx)"
                    + "  metaspace %6.0f KB (+%.0f)  JVM classes %5.0f (+%.0f)%n",
                    v == 0 ? "plain" : variants.get(v), c, c / plainCpu, w, w / plainWall, median(metaspace[v]),
                    median(metaspace[v]) - median(metaspace[0]), median(jvmClasses[v]),
                    median(jvmClasses[v]) - median(jvmClasses[0]));
        }
        // Paired: each round ran every variant once, close together, so a round's ratio shares that moment's load
        // (the medians above do not pair them): the median over rounds of variant/plain.
        for (int v = 1; v < variants.size(); v++) {
            double[] toPlain = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                toPlain[r] = (double) cpu[v][r] / cpu[0][r];
            }
            System.out.printf(Locale.ROOT, "%-45s loading thread cpu, paired by round: %.2fx plain%n", variants.get(v),
                    median(toPlain));
        }
    }

    /** {classes, wall ms, cpu ms, metaspace KB, JVM classes} */
    private static long[] run(String agent, List<String> target) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (agent != null) {
            String[] parts = agent.trim().split("\\s+");
            cmd.add("-javaagent:" + parts[0]);
            cmd.addAll(Arrays.asList(parts).subList(1, parts.length));
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(LoadAll.class.getName());
        cmd.addAll(target);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = p.waitFor();
        Matcher m = RESULT.matcher(out);
        if (exit != 0 || !m.find()) {
            System.err.println("FAIL: child exit " + exit + ": " + out);
            System.exit(1);
        }
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
                Long.parseLong(m.group(4)), Long.parseLong(m.group(5))};
    }

    private static double median(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
    }

    private static double median(long[] values) {
        long[] s = values.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
    }
}
