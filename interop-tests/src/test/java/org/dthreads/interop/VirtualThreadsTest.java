package org.dthreads.interop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import example.vthreads.VirtualSite;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import jdk.jfr.consumer.RecordedEvent;
import org.awaitility.core.ConditionTimeoutException;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Virtual threads as application threads (issue 18), on JDK 25 sites over JRMP, in both callback modes: they make
 * remote calls and receive callbacks; emulated monitors held across those calls never pin a carrier (a JFR
 * recording of {@code jdk.VirtualThreadPinned} in the site, with dthreads' own events on, read back here); 10,000
 * of them, each holding an emulated monitor across a call, finish on two carriers. Each site gets exactly two carriers and no
 * compensation ({@code jdk.virtualThreadScheduler.parallelism=maxPoolSize=2}), so two pinned threads would stop
 * every other. Trail notation of the callbacks: see {@link example.vthreads.VirtualHop#reenter}.
 */
@ExtendWith(SitesExtension.class)
class VirtualThreadsTest {

    /** Shared monitors of the crowd: as many calls in flight at most, the rest of the threads queue for them. */
    static final int LOCKS = Integer.getInteger("dthreads.test.vthreadLocks", 64);
    static final int CROWD = 10_000;

    @BeforeAll
    static void agentIsBuilt() {
        JrmpZigzagTest.agentIsBuilt();
    }

    static List<Site> start(SiteCluster cluster, boolean original) {
        Path java25 = Jdk25.javaOrSkip();
        SiteSpec[] specs = new SiteSpec[2];
        String[] names = {"A", "B"};
        for (int i = 0; i < 2; i++) {
            SiteSpec spec = SiteSpec.app(names[i], VirtualSite.class).javaAgent(JrmpZigzagTest.AGENT).javaExecutable(java25)
                    .systemProperty("jdk.virtualThreadScheduler.parallelism", "2")
                    .systemProperty("jdk.virtualThreadScheduler.maxPoolSize", "2")
                    .jvmFlags("-Xss512k");
            specs[i] = original ? spec.systemProperty("dthreads.callbacks", "original") : spec;
        }
        return cluster.start(specs);
    }

    @Test
    void takeOverModeAVirtualThreadsZigzagAndTenThousandWaitsCompleteWithoutPinning(SiteCluster cluster) throws IOException {
        List<Site> sites = start(cluster, false);
        warmUp(cluster, sites.get(0), false);
        sites.get(0).run("jfrStart");
        // the callback takes over the virtual thread's emulated monitor on an RMI server thread
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> sites.get(0).run("zigzag", "B", "-1"));
        assertEquals("caller=virtual callback=platform,fresh,other", trail);
        // 10,000 virtual threads in an emulated wait() on one monitor, all woken by notifyAll
        String waited = cluster.assertCompletesWithin(Duration.ofSeconds(90), () -> sites.get(0).run("waiters", "10000"));
        assertEquals("done 10000", waited);
        assertNoPinnedPark(sites.get(0));
    }

    @Test
    void originalModeTheCallbackRunsOnTheVirtualThreadWithoutPinning(SiteCluster cluster) throws IOException {
        List<Site> sites = start(cluster, true);
        warmUp(cluster, sites.get(0), true);
        sites.get(0).run("jfrStart");
        String emulated = cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> sites.get(0).run("zigzag", "B", "-1"));
        assertEquals("caller=virtual callback=virtual,seen,same", emulated);
        // a Vector's native-mode monitor held across the call by a virtual thread, re-entered by the callback
        String vector = cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> sites.get(0).run("zigzag", "B", "-2"));
        assertEquals("caller=virtual callback=virtual,seen,same", vector);
        assertNoPinnedPark(sites.get(0));
    }

    /**
     * dthreads' own JFR events, committed by thousands of virtual threads of distinct classes at once, pin no carrier.
     * JDK 25's {@code EventWriter.putString} pools a string field longer than 16 characters that is among the last
     * four it wrote ({@code jdk.jfr.internal.StringPool}) and pins the virtual thread while it stores it under a
     * global lock; a thread class as text ({@code site:thread}) has 17, and both entrants of a group name the same
     * owner, so with the classes as text 2 to 9 of these commits a run blocked their carriers on that lock (5 of 5
     * runs failed).
     */
    @Test
    void committingDthreadsJfrEventsPinsNoCarrier(SiteCluster cluster) throws IOException {
        Site a = start(cluster, false).get(0);
        String warm = cluster.assertCompletesWithin(Duration.ofSeconds(60), () -> a.run("blockedGroups", "64", "3", "30"));
        assertTrue(warm.startsWith("done"), warm);
        a.run("jfrStart");
        int rounds = 6;
        int groups = 3000;
        for (int i = 0; i < rounds; i++) { // each round 9,000 new threads, so new classes: new strings for the pool
            String result = cluster.assertCompletesWithin(Duration.ofSeconds(150),
                    () -> a.run("blockedGroups", String.valueOf(groups), "2", "50"));
            assertEquals("done " + 2 * groups, result);
        }
        Path file = Path.of(a.run("jfrStop"));
        long enters = count(file, "org.dthreads.MonitorEnter");
        assertTrue(enters >= rounds * groups, enters + " org.dthreads.MonitorEnter events: the blocked entries were not recorded");
        List<String> pinned = pinnedParks(file);
        assertTrue(pinned.isEmpty(), () -> pinned.size() + " pinned parks with " + enters + " MonitorEnter events:\n"
                + String.join("\n\n", pinned.subList(0, Math.min(5, pinned.size()))));
        Files.deleteIfExists(file);
    }

    @Test
    void controlTheRecordingSeesAPinnedPark(SiteCluster cluster) throws IOException {
        List<Site> sites = start(cluster, false);
        sites.get(0).run("jfrStart");
        sites.get(0).run("pinControl");
        List<String> pinned = pinnedParks(Path.of(sites.get(0).run("jfrStop")));
        assertTrue(pinned.stream().anyMatch(p -> p.contains("VirtualSite$SlowInit.<clinit>")), pinned::toString);
    }

    @Test
    void anInterruptOfAVirtualThreadInACallEndsItsClasssWaitAtTheCalleeInTakeOverMode(SiteCluster cluster) {
        interruptCall(cluster, false);
    }

    @Test
    void anInterruptOfAVirtualThreadInACallEndsItsClasssWaitAtTheCalleeInOriginalMode(SiteCluster cluster) {
        interruptCall(cluster, true);
    }

    /** Delivered once: the wait of the thread's class at B throws, the virtual thread's own status stays clear. */
    private static void interruptCall(SiteCluster cluster, boolean original) {
        List<Site> sites = start(cluster, original);
        String platform = cluster.assertCompletesWithin(Duration.ofSeconds(40), () -> sites.get(0).run("interruptCall", "B", "platform"));
        String seen = cluster.assertCompletesWithin(Duration.ofSeconds(40), () -> sites.get(0).run("interruptCall", "B"));
        assertEquals("interrupted; status false / interrupted; status false", platform + " / " + seen);
    }

    @Test
    void aDeadlockOfVirtualThreadsIsReportedWithTheirStacks(SiteCluster cluster) {
        // the JVM's thread dump lists no virtual threads; dthreads' report and thread dump read their stacks themselves
        List<Site> sites = start(cluster, false);
        String[] out = sites.get(0).run("abba").split(java.util.regex.Pattern.quote(VirtualSite.DUMP_SEPARATOR));
        String report = out[0];
        assertTrue(report.contains("Found one dthreads deadlock") && report.contains("thread \"vt-abba-1\"")
                && report.contains("thread \"vt-abba-2\""), report);
        assertTrue(report.contains("at example.vthreads.VirtualSite.lockBoth(VirtualSite.java:"), report);
        String dump = out[1];
        for (String name : new String[] {"vt-abba-1", "vt-abba-2"}) {
            int at = dump.indexOf("\"" + name + "\" #");
            assertTrue(at >= 0, name + " missing from the thread dump:\n" + dump);
            String entry = dump.substring(at, dump.indexOf("\n\n", at));
            assertTrue(entry.contains(" virtual") && entry.contains("java.lang.Thread.State: BLOCKED (on an emulated monitor")
                    && entry.contains("- waiting to lock <0x") && entry.contains("[emulated] owned by class")
                    && entry.contains("at example.vthreads.VirtualSite.lockBoth(VirtualSite.java:")
                    && entry.contains("[emulated] by class"), entry);
            // as for a platform thread, the runtime's parking frames are hidden: the application's frame comes first
            assertTrue(entry.contains("java.lang.Thread.State: BLOCKED (on an emulated monitor; the JVM sees ")
                    && entry.substring(entry.indexOf("\tat ")).startsWith("\tat example.vthreads.VirtualSite.lockBoth("), entry);
        }
        assertTrue(dump.contains("Found 1 dthreads deadlock(s)."), dump);
    }

    @Test
    void tenThousandVirtualThreadsHoldingEmulatedMonitorsAcrossCallsFinishInTakeOverMode(SiteCluster cluster)
            throws IOException {
        crowd(cluster, false, "platform,fresh,other");
    }

    @Test
    void tenThousandVirtualThreadsHoldingEmulatedMonitorsAcrossCallsFinishInOriginalMode(SiteCluster cluster)
            throws IOException {
        crowd(cluster, true, "virtual,seen,same");
    }

    private static void crowd(SiteCluster cluster, boolean original, String callback) throws IOException {
        List<Site> sites = start(cluster, original);
        warmUp(cluster, sites.get(0), original);
        sites.get(0).run("jfrStart");
        String result = cluster.assertCompletesWithin(Duration.ofSeconds(150),
                () -> sites.get(0).run("crowd", "B", String.valueOf(CROWD), String.valueOf(LOCKS), "5", "120"));
        System.out.println("VirtualThreadsTest crowd (" + (original ? "original" : "takeover") + ", " + LOCKS + " shared locks): " + result);
        assertTrue(result.startsWith("done of " + CROWD + " ") && result.endsWith("callbacks {" + callback + "=" + CROWD + "}")
                && result.contains("classes " + CROWD + ";"), result);
        assertNoPinnedPark(sites.get(0));
        // nothing per thread outlives the threads: the actors die with their threads, and what refers to them
        // weakly (the suspended-threads entries) or to their locked objects (the monitor table) is dropped
        // lazily: on the next outgoing call after a collection, and by the table's sweep after collections
        AtomicReference<String> live = new AtomicReference<>();
        try {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> {
                sites.get(0).run("zigzag", "B", "-1");
                live.set(sites.get(0).run("live", "java.lang.VirtualThread", "org.dthreads.monitor.internal.Actor",
                        "org.dthreads.monitor.internal.SuspendedThreads$Entry", "org.dthreads.monitor.internal.Monitor",
                        "org.dthreads.monitor.internal.HeldSlotMonitors"));
                return Arrays.stream(live.get().split(" ")).allMatch(p -> Long.parseLong(p.substring(p.indexOf('=') + 1)) < CROWD / 10);
            });
        } catch (ConditionTimeoutException e) {
            fail("per-thread state outlives the threads: " + live.get(), e);
        }
        System.out.println("VirtualThreadsTest live after the crowd: " + live);
    }

    /**
     * Runs a small crowd and both zigzags before the recording starts. The first use of a class by several threads
     * at once makes all but one wait for its initialization, and a virtual thread waits for another thread's class
     * initialization on its carrier (JDK 25 still pins there: {@code pinnedReason} "Waited for initialization of
     * ... by another thread"); those waits (a few ms, once per class, seen for dthreads' runtime classes, RMI's
     * and the JDK's socket poller) are not what this test is about. The recording then covers the steady state.
     * The zigzag through the {@code Vector} (a native-mode monitor) runs only in original mode: it deadlocks in
     * take-over mode.
     */
    private static void warmUp(SiteCluster cluster, Site site, boolean original) {
        String warm = cluster.assertCompletesWithin(Duration.ofSeconds(60), () -> site.run("crowd", "B", "256", "16", "1", "50"));
        assertTrue(warm.startsWith("done"), warm);
        String zigzags = cluster.assertCompletesWithin(Duration.ofSeconds(30),
                () -> site.run("zigzag", "B", "-1") + (original ? site.run("zigzag", "B", "-2") : ""));
        assertTrue(!zigzags.contains("stuck"), zigzags);
    }

    /** Stops the site's recording and fails, with every pinned park's stack, if there was one. */
    private static void assertNoPinnedPark(Site site) throws IOException {
        Path file = Path.of(site.run("jfrStop"));
        List<String> pinned = pinnedParks(file);
        assertTrue(pinned.isEmpty(), () -> pinned.size() + " pinned parks:\n" + String.join("\n\n", pinned));
        Files.deleteIfExists(file);
    }

    /** How many events named {@code name} {@code file} holds. */
    private static long count(Path file, String name) throws IOException {
        return RecordingFile.readAllEvents(file).stream().filter(e -> e.getEventType().getName().equals(name)).count();
    }

    /**
     * Every {@code jdk.VirtualThreadPinned} event of {@code file}, its duration and stack, except those of the
     * JDK's own I/O poller threads: on Linux, JDK 25 runs each sub-poller as a virtual thread that waits in
     * {@code epoll_wait} (a native frame), which is recorded as pinned whenever it polls; no application or
     * dthreads code runs on them. A pin inside JFR's commit of one of dthreads' events counts: the one seen before
     * (1 ms, in one of eighteen runs, a bare generated {@code commit()} frame on top) was JFR initializing its
     * event writer class inside the first commit, which {@code MonitorEvents} now does on the loading thread.
     */
    static List<String> pinnedParks(Path file) throws IOException {
        assertTrue(Files.size(file) > 0, "empty recording " + file);
        List<String> out = new ArrayList<>();
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent e = recording.readEvent();
                if (!e.getEventType().getName().equals("jdk.VirtualThreadPinned")) {
                    continue;
                }
                StringBuilder s = new StringBuilder(e.getDuration().toMillis() + " ms pinned");
                for (jdk.jfr.ValueDescriptor field : e.getFields()) {
                    if (!field.getName().equals("stackTrace")) {
                        s.append(' ').append(field.getName()).append('=').append(e.getValue(field.getName()).toString().replace('\n', ' '));
                    }
                }
                if (e.getStackTrace() != null) {
                    for (RecordedFrame f : e.getStackTrace().getFrames()) {
                        s.append("\n  ").append(f.getMethod().getType().getName()).append('.').append(f.getMethod().getName());
                    }
                }
                if (!s.toString().contains("\n  sun.nio.ch.Poller.")) {
                    out.add(s.toString());
                }
            }
        }
        return out;
    }

}
