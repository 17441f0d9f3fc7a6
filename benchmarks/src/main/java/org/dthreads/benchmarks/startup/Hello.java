package org.dthreads.benchmarks.startup;

/** The child JVM: prints its own CPU time so far (all threads, from /proc on Linux), in milliseconds. */
public final class Hello {

    private Hello() {}

    public static void main(String[] args) {
        long cpuMs = ProcessHandle.current().info().totalCpuDuration().map(java.time.Duration::toMillis).orElse(-1L);
        System.out.println("hello cpuMs=" + cpuMs);
    }
}
