package org.dthreads.benchmarks.rmi;

import java.rmi.RemoteException;
import java.rmi.server.UnicastRemoteObject;
import java.util.concurrent.TimeUnit;
import org.dthreads.benchmarks.rmi.twinned.Adder;
import org.dthreads.benchmarks.rmi.twinned.AdderImpl;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Local calls pay nothing: a remote object's method called inside its own JVM, through its remote
 * interface, in a JVM with the dthreads agent ({@link WithAgent}, the interface has twins) and in
 * one without ({@link Plain}). Run both in one JMH run from the repository root:
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar 'LocalCallBenchmark' -f 2 -wi 5 -i 10 -w 1s -r 1s
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public abstract class LocalCallBenchmark {

    private AdderImpl impl;
    private Adder adder;
    private int x;

    /** Whether this fork must run with the agent (checked, so a broken set-up cannot pass as a result). */
    abstract boolean withAgent();

    @Setup(Level.Trial)
    public void export() throws RemoteException {
        boolean twinned = java.util.Arrays.stream(Adder.class.getMethods()).anyMatch(m -> m.getName().endsWith("-dthreads"));
        if (twinned != withAgent()) {
            throw new IllegalStateException("expected " + (withAgent() ? "" : "no ") + "twins on Adder: run from the"
                    + " repository root after ./mvnw -B install -DskipTests");
        }
        impl = new AdderImpl();
        UnicastRemoteObject.exportObject(impl, 0);
        adder = impl;
    }

    @TearDown(Level.Trial)
    public void unexport() throws RemoteException {
        UnicastRemoteObject.unexportObject(impl, true);
    }

    @Benchmark
    public int localCall() throws RemoteException {
        return adder.add(x++, 3);
    }

    /** The JVM runs the dthreads agent; {@code Adder} has twins. */
    @org.openjdk.jmh.annotations.Fork(jvmArgsAppend = {"-javaagent:dthreads-agent/target/dthreads-agent.jar",
            "-Ddthreads.include=org.dthreads.benchmarks.rmi.twinned."})
    public static class WithAgent extends LocalCallBenchmark {
        @Override
        boolean withAgent() {
            return true;
        }
    }

    /** The anchor: no agent. */
    @org.openjdk.jmh.annotations.Fork(jvmArgsAppend = {"-Ddthreads.none=true"})
    public static class Plain extends LocalCallBenchmark {
        @Override
        boolean withAgent() {
            return false;
        }
    }
}
