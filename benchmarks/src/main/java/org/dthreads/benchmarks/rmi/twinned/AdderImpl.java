package org.dthreads.benchmarks.rmi.twinned;

/** The remote object, exported in its own JVM and called there directly. */
public final class AdderImpl implements Adder {
    private int calls;

    @Override
    public int add(int a, int b) {
        calls++;
        return a + b + (calls & 1);
    }
}
