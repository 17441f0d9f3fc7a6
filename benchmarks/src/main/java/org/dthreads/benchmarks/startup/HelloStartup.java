package org.dthreads.benchmarks.startup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The agent's fixed start-up cost: a hello-world JVM ({@link Hello}) plain and under each agent jar given,
 * interleaved (the order rotates every round), {@code rounds} of each. Per variant: the median CPU time the
 * child reports at the end of {@code main} (all its threads: JIT and GC included) and the median wall time
 * from start to exit, and both as ratios to plain. A child that fails stops the run (exit status 1).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar org.dthreads.benchmarks.startup.HelloStartup [rounds=21] \
 *     dthreads-agent/target/dthreads-agent.jar [other-agent.jar ...]
 * </pre>
 */
public final class HelloStartup {

    private HelloStartup() {}

    public static void main(String[] args) throws Exception {
        int rounds = 21;
        List<String> agents = new ArrayList<>();
        for (String a : args) {
            if (a.matches("\\d+")) {
                rounds = Integer.parseInt(a);
            } else {
                agents.add(a);
            }
        }
        if (agents.isEmpty()) {
            agents.add("dthreads-agent/target/dthreads-agent.jar");
        }
        List<String> variants = new ArrayList<>();
        variants.add(null); // plain
        variants.addAll(agents);
        long[][] cpu = new long[variants.size()][rounds];
        long[][] wall = new long[variants.size()][rounds];
        System.out.printf(Locale.ROOT, "hello world, %d rounds, %d processors, load average %.2f%n", rounds,
                Runtime.getRuntime().availableProcessors(),
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < variants.size(); k++) {
                int v = (r + k) % variants.size();
                long[] m = run(variants.get(v));
                cpu[v][r] = m[0];
                wall[v][r] = m[1];
            }
        }
        double plainCpu = median(cpu[0]);
        double plainWall = median(wall[0]);
        for (int v = 0; v < variants.size(); v++) {
            double c = median(cpu[v]);
            double w = median(wall[v]);
            System.out.printf(Locale.ROOT, "%-50s cpu %6.0f ms (%.2fx)  wall %6.0f ms (%.2fx)%n",
                    v == 0 ? "plain" : variants.get(v), c, c / plainCpu, w, w / plainWall);
        }
    }

    /** {cpu ms as the child reports it, wall ms} */
    private static long[] run(String agent) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (agent != null) {
            cmd.add("-javaagent:" + agent);
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Hello.class.getName());
        long start = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = p.waitFor();
        long wallMs = (System.nanoTime() - start) / 1_000_000;
        int at = out.indexOf("hello cpuMs=");
        if (exit != 0 || at < 0) {
            System.err.println("child failed (exit " + exit + "): " + out);
            System.exit(1);
        }
        long cpuMs = Long.parseLong(out.substring(at + "hello cpuMs=".length()).trim().split("\\s")[0]);
        return new long[] {cpuMs, wallMs};
    }

    private static double median(long[] values) {
        long[] s = values.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
    }
}
