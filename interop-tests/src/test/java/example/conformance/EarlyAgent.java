package example.conformance;

import java.lang.instrument.Instrumentation;

/** An agent attached before dthreads: the class it loads is loaded before dthreads starts. */
public final class EarlyAgent {
    public static void premain(String args, Instrumentation inst) throws ClassNotFoundException {
        Class.forName("example.conformance.Probe", true, ClassLoader.getSystemClassLoader());
    }
}
