package org.dthreads.agent;

/**
 * The agent's part in diagnostics: registers the MBean {@code org.dthreads:type=Monitors} of the runtime on the
 * bootstrap class path, on demand. {@code ./dthreads dump|deadlocks PID} loads the agent into a running JVM with
 * {@link #ATTACH_OPTION}, which lands here instead of a second start-up; a JVM started with a JMX connector
 * ({@code -Dcom.sun.management.jmxremote...}) or {@code -Ddthreads.jmx=true} registers it on a daemon thread,
 * so start-up does not wait for the platform MBean server (tens of milliseconds to create). Without either the
 * MBean server is never created by dthreads. JDK classes only, like {@link DThreadsAgent}.
 */
final class DiagnosticsHook {
    /** The agent option of the diagnostic attach. */
    static final String ATTACH_OPTION = "dthreads-mbean";
    private static final String REGISTRATION = "org.dthreads.monitor.internal.diagnostics.MonitorsMBeanRegistration";

    private DiagnosticsHook() {}

    /**
     * At start-up: registers the MBean on a daemon thread if the JVM starts JMX anyway, or was asked to. Never
     * throws: a premain that throws aborts the JVM (a security manager may deny reading the properties).
     */
    static void registerIfWanted() {
        try {
            if (System.getProperty("com.sun.management.jmxremote.port") == null
                    && System.getProperty("com.sun.management.jmxremote") == null && !Boolean.getBoolean("dthreads.jmx")) {
                return;
            }
            Thread t = new Thread(() -> {
                try {
                    register();
                } catch (RuntimeException e) {
                    System.getLogger(DiagnosticsHook.class.getName()).log(System.Logger.Level.WARNING, e.getMessage());
                }
            }, "dthreads-mbean-registration");
            t.setDaemon(true);
            t.start();
        } catch (RuntimeException | Error denied) {
            System.getLogger(DiagnosticsHook.class.getName()).log(System.Logger.Level.WARNING,
                    "dthreads: the MBean org.dthreads:type=Monitors is not registered at start-up: " + denied);
        }
    }

    /**
     * Registers the MBean now.
     *
     * @throws IllegalStateException if this JVM has no dthreads runtime (not started with the agent) or the
     *         registration failed; the attaching tool reports the message
     */
    static void register() {
        boolean ok;
        try {
            ok = (Boolean) Class.forName(REGISTRATION, true, null).getMethod("register").invoke(null);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("dthreads: this JVM runs without the dthreads runtime (start it with"
                    + " -javaagent:dthreads-agent.jar)");
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalStateException("dthreads: registering the MBean failed: " + e, e);
        }
        if (!ok) {
            throw new IllegalStateException("dthreads: registering the MBean failed (see the JVM's log)");
        }
    }
}
