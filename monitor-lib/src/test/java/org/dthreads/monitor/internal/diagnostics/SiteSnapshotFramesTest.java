package org.dthreads.monitor.internal.diagnostics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A blocked thread's frames in a cycle report are the application's below the runtime, whatever JDK code the
 * runtime happens to run at the moment of the snapshot: the watch confirms a cycle and every site reports it by
 * comparing these frames as text (an interop run under a CPU hog saw one site catch the blocked thread inside
 * JFR's first event registration, so the two sites' reports differed).
 */
class SiteSnapshotFramesTest {

    private static StackTraceElement f(String cls, String method) {
        return new StackTraceElement(cls, method, "X.java", 7);
    }

    private static final StackTraceElement APP = f("example.Shop", "lockYours");
    private static final StackTraceElement CALLER = f("example.Locker", "lockYours-dthreads");
    private static final StackTraceElement REFLECT = f("jdk.internal.reflect.NativeMethodAccessorImpl", "invoke");
    private static final StackTraceElement DISPATCH = f("sun.rmi.server.UnicastServerRef", "dispatch");

    @Test
    void parkedAndInsideJdkCodeTheRuntimeCallsGiveTheSameFrames() {
        List<String> parked = SiteSnapshot.applicationFrames(new StackTraceElement[] {
            f("jdk.internal.misc.Unsafe", "park"), f("java.util.concurrent.locks.LockSupport", "parkNanos"),
            f("org.dthreads.monitor.internal.Monitor", "enterSlow"), f("org.dthreads.monitor.Monitors", "enter"),
            APP, CALLER, REFLECT, DISPATCH});
        List<String> registeringJfr = SiteSnapshot.applicationFrames(new StackTraceElement[] {
            f("jdk.jfr.internal.EventControl", "<clinit>"), f("jdk.jfr.internal.MetadataRepository", "<init>"),
            f("jdk.jfr.FlightRecorder", "register"), f("org.dthreads.monitor.internal.JfrHooks", "enterBlocked"),
            f("org.dthreads.monitor.internal.Monitor", "enterSlow"), f("org.dthreads.monitor.Monitors", "enter"),
            APP, CALLER, REFLECT, DISPATCH});
        assertEquals(List.of("example.Shop.lockYours(X.java:7)", "example.Locker.lockYours-dthreads(X.java:7)",
                "sun.rmi.server.UnicastServerRef.dispatch(X.java:7)"), parked);
        assertEquals(parked, registeringJfr);
    }

    @Test
    void aThreadOutsideTheRuntimeKeepsItsWholeStack() {
        List<String> frames = SiteSnapshot.applicationFrames(new StackTraceElement[] {
            f("java.net.SocketInputStream", "read"), APP, CALLER});
        assertEquals(List.of("java.net.SocketInputStream.read(X.java:7)", "example.Shop.lockYours(X.java:7)",
                "example.Locker.lockYours-dthreads(X.java:7)"), frames);
    }
}
