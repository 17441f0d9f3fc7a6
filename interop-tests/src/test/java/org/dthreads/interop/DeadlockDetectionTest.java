package org.dthreads.interop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.deadlock.rmi.LockSite;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The wait-for graph across JVMs (issue 17) with real sites and the real command line
 * ({@code java -jar dthreads-agent.jar dump|deadlocks}, what {@code ./dthreads dump|deadlocks} runs): a
 * distributed AB-BA over JRMP that no JVM sees alone is reported with every edge within 5 s; a local AB-BA on
 * emulated monitors is found by the API, the MBean (read by a JMX client in this JVM over the site's JMX
 * connector) and the dump; a zigzag held mid-chain, with other classes queued on its monitors, is no deadlock.
 * On a failure the site kit attaches every site's thread and monitor dumps.
 */
@ExtendWith(SitesExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DeadlockDetectionTest {
    static final Path AGENT = JrmpZigzagTest.AGENT;

    @BeforeAll
    static void agentIsBuilt() {
        assertTrue(Files.isRegularFile(AGENT), "run the build first: no agent at " + AGENT.toAbsolutePath());
    }

    record Cli(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    static Cli cli(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", AGENT.toString()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile("dthreads-cli", ".out");
        Path err = Files.createTempFile("dthreads-cli", ".err");
        try {
            Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("the command line did not finish within 30 s: " + command);
            }
            return new Cli(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    static void inBackground(String name, Runnable r) {
        Thread t = new Thread(() -> {
            try {
                r.run();
            } catch (RuntimeException ended) {
                // the cluster killed the site at the end of the test
            }
        }, name);
        t.setDaemon(true);
        t.start();
    }

    @Test
    void twoJvmAbBaOverJrmpIsReportedEdgeByEdgeWithinFiveSeconds(SiteCluster cluster) throws Exception {
        List<Site> s = cluster.start(SiteSpec.app("A", LockSite.class).javaAgent(AGENT),
                SiteSpec.app("B", LockSite.class).javaAgent(AGENT));
        Site a = s.get(0);
        Site b = s.get(1);
        inBackground("abba-A", () -> a.run("abba", "B"));
        inBackground("abba-B", () -> b.run("abba", "A"));
        assertEquals("held", a.run("held"));
        assertEquals("held", b.run("held"));
        Cli before = cli("deadlocks", Long.toString(a.pid()), Long.toString(b.pid()));
        assertEquals(0, before.exit(), before::toString); // each holds its own node: no edge yet

        a.run("go");
        b.run("go");
        long goAt = System.nanoTime();
        AtomicReference<Cli> last = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50)).until(() -> {
            last.set(cli("deadlocks", Long.toString(a.pid()), Long.toString(b.pid())));
            return last.get().exit() == 1;
        });
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - goAt);
        String report = last.get().out();
        System.out.println("reported " + millis + " ms after go:\n" + report);
        assertTrue(report.contains("a cycle of 2 thread classes across 2 sites"), report);
        assertTrue(report.contains("(pid " + a.pid() + "): thread \"RMI TCP Connection"), report);
        assertTrue(report.contains("(pid " + b.pid() + "): thread \"RMI TCP Connection"), report);
        assertEquals(2, count(report, "(a example.deadlock.rmi.LockSite$Node) [emulated monitor]"), report);
        assertEquals(2, count(report, "at example.deadlock.rmi.LockSite$Server.lockYours(LockSite.java"), report);
        assertEquals("[]", a.run("deadlocked"), "a site alone sees no cycle: it spans two JVMs");

        Cli dump = cli("dump", Long.toString(a.pid()));
        assertEquals(0, dump.exit(), dump::toString);
        assertTrue(dump.out().matches("(?s).*\t- waiting to lock <0x\\p{XDigit}{8}> \\(a example.deadlock.rmi.LockSite\\$Node\\)"
                + " \\[emulated\\] owned by class \\p{XDigit}{8}:\\p{XDigit}{8} \\(thread \"[^\"]+\"\\).*"), dump::toString);
        assertTrue(dump.out().contains("- in an outgoing remote call, acting for class"), dump::toString);
        assertTrue(dump.out().contains("(a example.deadlock.rmi.LockSite$Node) [emulated] by class"), dump::toString);
    }

    @Test
    void twoJvmAbBaOnRemoteMonitorsThroughStubsIsReported(SiteCluster cluster) throws Exception {
        List<Site> s = cluster.start(SiteSpec.app("A", LockSite.class).javaAgent(AGENT),
                SiteSpec.app("B", LockSite.class).javaAgent(AGENT));
        Site a = s.get(0);
        Site b = s.get(1);
        inBackground("stub-abba-A", () -> a.run("stubAbba", "B"));
        inBackground("stub-abba-B", () -> b.run("stubAbba", "A"));
        assertEquals("held", a.run("held"));
        assertEquals("held", b.run("held"));
        a.run("go");
        b.run("go");
        AtomicReference<Cli> last = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50)).until(() -> {
            last.set(cli("deadlocks", Long.toString(a.pid()), Long.toString(b.pid())));
            return last.get().exit() == 1;
        });
        String report = last.get().out();
        System.out.println("remote monitors:\n" + report);
        assertTrue(report.contains("a cycle of 2 thread classes across 2 sites"), report);
        assertEquals(2, count(report, "(a example.deadlock.rmi.LockSite$Server) [emulated monitor]"), report);
        Cli dump = cli("dump", Long.toString(a.pid()));
        assertTrue(dump.out().contains("- in an outgoing remote call, acting for class"), dump::toString);
        assertTrue(dump.out().contains("[remote monitor: owned at its site]"), dump::toString);
    }

    @Test
    void threeSiteCycleMixingJrmpAndJacorbIsReportedWithinFiveSeconds(SiteCluster cluster) throws Exception {
        List<Site> s = cluster.start(SiteSpec.app("A", LockSite.class).javaAgent(AGENT).args("corba", "dthreads"),
                SiteSpec.app("B", LockSite.class).javaAgent(AGENT).args("corba", "dthreads"),
                SiteSpec.app("C", LockSite.class).javaAgent(AGENT).args("corba", "dthreads"));
        String[] next = {"rmi:B", "corba:C", "rmi:A"}; // A -JRMP-> B -IIOP-> C -JRMP-> A
        for (int i = 0; i < 3; i++) {
            Site site = s.get(i);
            String peer = next[i];
            inBackground("abba-" + i, () -> site.run("abba", peer));
        }
        for (Site site : s) {
            assertEquals("held", site.run("held"));
        }
        s.forEach(site -> site.run("go"));
        long goAt = System.nanoTime();
        String[] pids = s.stream().map(site -> Long.toString(site.pid())).toArray(String[]::new);
        AtomicReference<Cli> last = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50)).until(() -> {
            last.set(cli("deadlocks", pids[0], pids[1], pids[2]));
            return last.get().exit() == 1;
        });
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - goAt);
        String report = last.get().out();
        System.out.println("three sites, reported " + millis + " ms after go:\n" + report);
        assertTrue(report.contains("a cycle of 3 thread classes across 3 sites"), report);
        for (String pid : pids) {
            assertEquals(1, count(report, "(pid " + pid + "): thread"), report);
        }
        assertEquals(3, count(report, "(a example.deadlock.rmi.LockSite$Node) [emulated monitor]"), report);
        assertTrue(report.contains("LockSite$CorbaEntry.invoke"), report); // the IIOP edge, at C
    }

    @Test
    void localEmulatedAbBaIsFoundByTheApiTheMBeanAndTheDump(SiteCluster cluster) throws Exception {
        int port = freePort();
        Site a = cluster.start(SiteSpec.app("A", LockSite.class).javaAgent(AGENT).jvmFlags(
                "-Dcom.sun.management.jmxremote.port=" + port, "-Dcom.sun.management.jmxremote.rmi.port=" + port,
                "-Dcom.sun.management.jmxremote.authenticate=false", "-Dcom.sun.management.jmxremote.ssl=false",
                "-Dcom.sun.management.jmxremote.host=127.0.0.1"));
        assertEquals("started", a.run("localAbba"));
        await().atMost(Duration.ofSeconds(10)).until(() -> a.run("deadlocked").equals("[abba-one, abba-two]"));

        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
        try (JMXConnector jmx = JMXConnectorFactory.connect(url)) {
            MBeanServerConnection server = jmx.getMBeanServerConnection();
            ObjectName name = new ObjectName("org.dthreads:type=Monitors");
            assertEquals(1, server.getAttribute(name, "DeadlockCount"));
            assertEquals(2, server.getAttribute(name, "BlockedThreads"));
            String text = (String) server.invoke(name, "deadlocks", null, null);
            assertTrue(text.contains("a cycle of 2 thread classes across 1 site"), text);
        }
        Cli remote = cli("deadlocks", "127.0.0.1:" + port);
        assertEquals(1, remote.exit(), remote::toString);
        assertTrue(remote.out().contains("(127.0.0.1:" + port + "): thread \"abba-one\""), remote::toString);

        Cli dump = cli("dump", Long.toString(a.pid()));
        assertEquals(0, dump.exit(), dump::toString);
        assertTrue(dump.out().contains("\"abba-one\""), dump::toString);
        assertTrue(dump.out().contains("java.lang.Thread.State: BLOCKED (on an emulated monitor; the JVM sees TIMED_WAITING)"),
                dump::toString);
        assertTrue(dump.out().contains("(a example.deadlock.rmi.LockSite$Node) [emulated] owned by class"), dump::toString);
        assertTrue(dump.out().contains("Found 1 dthreads deadlock(s)."), dump::toString);

        Cli unreachable = cli("deadlocks", Long.toString(a.pid()), "127.0.0.1:" + freePort());
        assertEquals(2, unreachable.exit(), unreachable::toString);
        assertTrue(unreachable.err().contains("cannot reach target 127.0.0.1:"), unreachable::toString);
    }

    @Test
    void aZigzagHeldMidChainWithClassesQueuedIsNoDeadlock(SiteCluster cluster) throws Exception {
        List<Site> s = cluster.start(SiteSpec.app("A", LockSite.class).javaAgent(AGENT),
                SiteSpec.app("B", LockSite.class).javaAgent(AGENT));
        Site a = s.get(0);
        Site b = s.get(1);
        AtomicReference<String> trail = new AtomicReference<>();
        inBackground("zigzag", () -> trail.set(a.run("zigzag", "B", "4"))); // A holds, then B > A > B > A, pausing at A
        assertEquals("paused", a.run("paused"));
        AtomicReference<String> contendA = new AtomicReference<>();
        AtomicReference<String> contendB = new AtomicReference<>();
        inBackground("contend-A", () -> contendA.set(a.run("contend")));
        inBackground("contend-B", () -> contendB.set(b.run("contend")));
        String[] pids = {Long.toString(a.pid()), Long.toString(b.pid())};
        java.util.regex.Pattern queued = java.util.regex.Pattern.compile("entering: \\[\\p{XDigit}");
        await().atMost(Duration.ofSeconds(10)).until(() -> queued.matcher(a.monitorDump()).find()
                && queued.matcher(b.monitorDump()).find());
        for (int round = 0; round < 3; round++) {
            Cli r = cli("deadlocks", pids[0], pids[1]);
            assertEquals(0, r.exit(), r::toString);
            assertTrue(r.out().matches("(?s).*No deadlock found among 2 site\\(s\\) \\([2-9]\\d* wait-for edge\\(s\\)\\).*"),
                    r::toString);
        }
        a.run("release");
        await().atMost(Duration.ofSeconds(10)).until(() -> trail.get() != null && contendA.get() != null
                && contendB.get() != null);
        assertEquals("B > A > B > A", trail.get());
    }

    @Test
    void runningZigzagsAreNoDeadlock(SiteCluster cluster) throws Exception {
        List<Site> s = JrmpZigzagTest.start(cluster, true, "A", "B");
        java.util.concurrent.atomic.AtomicInteger routes = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        inBackground("zigzags", () -> {
            while (!stop.get()) {
                s.get(0).run("route", "A,B,A,B,A,B,A,B,A,B,A");
                routes.incrementAndGet();
            }
        });
        try {
            for (int round = 0; round < 4; round++) {
                Cli r = cli("deadlocks", Long.toString(s.get(0).pid()), Long.toString(s.get(1).pid()));
                assertEquals(0, r.exit(), r::toString);
            }
        } finally {
            stop.set(true);
        }
        assertTrue(routes.get() > 0, "the zigzags ran meanwhile");
        System.out.println(routes.get() + " ten-hop zigzags ran while the command line looked 4 times");
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
