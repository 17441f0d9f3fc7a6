package org.dthreads.monitor.internal.callbacks;

import org.dthreads.internal.RateLimitedLog;

/**
 * Where a callback (JRMP, or IIOP on the JacORB and GlassFish fast paths) runs, chosen once per JVM with
 * {@code -Ddthreads.callbacks}:
 * <ul>
 *   <li>{@code takeover} (the default): on the server thread that received it (RMI connection thread, ORB
 *       worker), which acts for its class (it may take over the class's emulated monitors while the class's thread waits in an outgoing call);</li>
 *   <li>{@code original}: on the thread of this site that waits in an outgoing call of the callback's class, if
 *       there is one ({@link CallbackHandOff}, {@link CallbackOutgoingCall}); otherwise as {@code takeover}.</li>
 * </ul>
 * {@link #ORIGINAL} is a {@code static final}: the JIT folds the check in every twin and in the client hooks (the
 * JacORB patch reads it when it patches), so the default mode runs the same code as before the option existed.
 *
 * <p>Runs on the bootstrap path; JDK and dthreads-api types only. Never throws: an unknown value is logged and
 * the default is used.
 */
public final class CallbackMode {

    /** The system property that selects the mode. */
    public static final String PROPERTY = "dthreads.callbacks";

    /** Whether callbacks run on the original thread ({@code -Ddthreads.callbacks=original}). */
    public static final boolean ORIGINAL = parse(System.getProperty(PROPERTY));

    /**
     * How long a callback waits in the original thread's queue before it gives up and runs on its own server
     * thread as in take-over mode ({@code -Ddthreads.callbacks.queueMillis}, default 5000, at most a day; an
     * unreadable value is the default). A callback queues
     * only while the original thread runs another callback of its class; the bound keeps a callback that waits
     * for a later one of the same class from hanging both.
     */
    public static final long QUEUE_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(
            Math.max(0L, Math.min(Long.getLong("dthreads.callbacks.queueMillis", 5000L), 86_400_000L)));

    private CallbackMode() {}

    static boolean parse(String value) {
        if (value == null || value.isBlank() || value.trim().equalsIgnoreCase("takeover")) {
            return false;
        }
        if (value.trim().equalsIgnoreCase("original")) {
            return true;
        }
        RateLimitedLog.forClass(CallbackMode.class).warn("bad-callbacks-mode", "dthreads: -D" + PROPERTY + "="
                + value + " is neither 'original' nor 'takeover'; callbacks run in take-over mode");
        return false;
    }
}
