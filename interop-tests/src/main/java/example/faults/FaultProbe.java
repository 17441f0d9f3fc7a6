package example.faults;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.dthreads.junit.SiteContext;
import org.dthreads.monitor.MonitorDump;

/**
 * What the fault sites share: a gate a chain can be held at (so a test kills a site while the chain
 * is known to be inside it), and a {@code state} step that says what is left on this site after a
 * fault: busy emulated monitors, threads the monitor runtime counts as suspended in an outgoing call,
 * threads still inside the application's hop code, threads with dthreads runtime frames, and threads
 * waiting for a remote reply.
 *
 * <p>A hop marked {@code NAME*} in a route stops at the gate on arrival (holding its monitor) until
 * the test runs step {@code release}. Step {@code atGate} answers how many chains wait there.
 */
public final class FaultProbe {

    private final String hopClassPrefix;
    private final AtomicInteger atGate = new AtomicInteger();
    private final AtomicInteger inHop = new AtomicInteger();
    private volatile CountDownLatch gate = new CountDownLatch(1);

    /** @param hopClassPrefix class-name prefix of this site's hop code (its frames count as "in a hop") */
    public FaultProbe(String hopClassPrefix) {
        this.hopClassPrefix = hopClassPrefix;
    }

    /** Registers steps {@code atGate}, {@code release} and {@code state}. */
    public void register(SiteContext ctx) {
        ctx.step("atGate", args -> Integer.toString(atGate.get()));
        ctx.step("release", args -> {
            CountDownLatch g = gate;
            gate = new CountDownLatch(1);
            g.countDown();
            return "released";
        });
        ctx.step("state", args -> state());
        ctx.step("monitors", args -> MonitorDump.text());
    }

    /** Marks entry into a hop; pair with {@link #left()}. */
    public void entered() {
        inHop.incrementAndGet();
    }

    public void left() {
        inHop.decrementAndGet();
    }

    /** Holds the calling thread at the gate until {@code release} (at most 60 s, then fails the hop). */
    public void stopAtGate() throws InterruptedException {
        CountDownLatch g = gate;
        atGate.incrementAndGet();
        try {
            if (!g.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the gate was not opened within 60 s");
            }
        } finally {
            atGate.decrementAndGet();
        }
    }

    /** A route hop like {@code C*} stops at the gate; the site name is without the star. */
    public static boolean gated(String hop) {
        return hop.endsWith("*");
    }

    public static String siteOf(String hop) {
        return gated(hop) ? hop.substring(0, hop.length() - 1) : hop;
    }

    /**
     * One line: {@code monitors=N suspended=N inHop=N atGate=N dthreadsThreads=N remoteWaits=N}, then
     * the names of the threads counted in the last three (for diagnostics).
     */
    public String state() {
        int monitors = MonitorDump.snapshot().size();
        int suspended = suspendedThreads();
        List<String> inRuntime = new ArrayList<>();
        List<String> inRemoteCall = new ArrayList<>();
        List<String> inHopCode = new ArrayList<>();
        Thread me = Thread.currentThread();
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            Thread t = e.getKey();
            if (t == me || t.getName().startsWith("dthreads-deadlock-")) { // the opt-in deadlock watch's daemons
                continue;
            }
            boolean runtime = false;
            boolean remote = false;
            boolean hop = false;
            for (StackTraceElement f : e.getValue()) {
                String c = f.getClassName();
                if (c.startsWith("org.dthreads.") && !c.startsWith("org.dthreads.junit.")) {
                    runtime = true;
                }
                if (c.startsWith(hopClassPrefix)) {
                    hop = true;
                }
                if ((c.equals("sun.rmi.transport.StreamRemoteCall") && f.getMethodName().equals("executeCall"))
                        || c.equals("sun.rmi.transport.tcp.TCPChannel") && f.getMethodName().equals("newConnection")
                        || c.equals("org.jacorb.orb.giop.ReplyPlaceholder")) {
                    remote = true;
                }
            }
            if (runtime) {
                inRuntime.add(t.getName());
            }
            if (remote && !t.getName().startsWith("RMI RenewClean")) {
                inRemoteCall.add(t.getName());
            }
            if (hop) {
                inHopCode.add(t.getName());
            }
        }
        return "monitors=" + monitors + " suspended=" + suspended + " inHop=" + inHop.get() + " atGate=" + atGate.get()
                + " hopThreads=" + inHopCode.size() + " dthreadsThreads=" + inRuntime.size()
                + " remoteWaits=" + inRemoteCall.size() + " | hop " + inHopCode + " runtime " + inRuntime
                + " remote " + inRemoteCall;
    }

    /**
     * Threads the monitor runtime holds as suspended in an outgoing call ({@code OutgoingCalls.begin()}
     * without its {@code end()} yet): read from the one runtime of this JVM (the agent's bootstrap copy
     * if there is one). -1 if it cannot be read.
     */
    static int suspendedThreads() {
        try {
            Class<?> rt;
            try {
                rt = Class.forName("org.dthreads.monitor.internal.InterruptRouting", false, null);
            } catch (ClassNotFoundException noBootCopy) {
                rt = Class.forName("org.dthreads.monitor.internal.InterruptRouting");
            }
            Field f = rt.getDeclaredField("SUSPENDED");
            f.setAccessible(true);
            Object suspended = f.get(null); // a SuspendedThreads (package-private): its size()
            java.lang.reflect.Method size = suspended.getClass().getDeclaredMethod("size");
            size.setAccessible(true);
            return (int) size.invoke(suspended);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return -1;
        }
    }

    private static final String SERVER_SIDE = "Server-side Exception: ";

    /** The exception and its causes, as {@code Type: message <- Type: message}. */
    public static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (sb.length() > 0) {
                sb.append(" <- ");
            }
            String msg = String.valueOf(c.getMessage()).replace('\n', ' ');
            // JacORB prefixes a system exception's message once per hop it crossed: say how many
            int hops = 0;
            while (msg.startsWith(SERVER_SIDE)) {
                msg = msg.substring(SERVER_SIDE.length());
                hops++;
            }
            if (hops > 0) {
                msg = "Server-side Exception (x" + hops + "): " + msg;
            }
            sb.append(c.getClass().getName()).append(": ").append(msg.length() > 240 ? msg.substring(0, 240) : msg);
        }
        return sb.toString();
    }
}
