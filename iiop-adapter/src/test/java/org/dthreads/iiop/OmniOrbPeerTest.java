package org.dthreads.iiop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.dthreads.ClassScope;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.iiop.support.HopServant;
import org.dthreads.iiop.support.Orbs;
import org.dthreads.iiop.testidl.Hop;
import org.dthreads.iiop.testidl.HopHelper;
import org.dthreads.internal.KernelLink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.omg.CORBA.ORB;

/**
 * A non-Java peer in the chain: Java (JacORB) -> Python (omniORBpy) -> Java, with the forwarding
 * recipe of {@code docs/wire-format.md} ({@code src/test/python/omniorb_peer.py}), and the control
 * without forwarding. Runs only where a Python with omniORBpy is available: set
 * {@code -Ddthreads.test.omniorb.python=/path/to/python} (for example a venv with the
 * {@code jeteve-omniorb} wheel, whose {@code omniidl} sits next to it); skipped otherwise.
 */
class OmniOrbPeerTest {

    private static ORB orb;
    private static Hop self;

    @TempDir
    static Path work;

    @BeforeAll
    static void javaSite() throws Exception {
        orb = Orbs.init(Orbs.Kind.JACORB, true);
        Orbs.runInBackground(orb, "omni-java");
        self = HopHelper.narrow(orb.string_to_object(orb.object_to_string(Orbs.rootPoa(orb).servant_to_reference(new HopServant()))));
    }

    @AfterAll
    static void stop() {
        Orbs.shutdown(orb);
    }

    private static String python() {
        String p = System.getProperty("dthreads.test.omniorb.python", "");
        return p.isBlank() || p.startsWith("${") ? null : p; // "${env...}": the variable was not set
    }

    /** On CI the peer must run: a missing prerequisite fails instead of skipping. */
    private static void assumeTrue(boolean condition, String reason) {
        if (Boolean.getBoolean("dthreads.test.requireOmniorb")) {
            org.junit.jupiter.api.Assertions.assertTrue(condition, reason + " (required on CI: .ci/run installs it)");
        } else {
            org.junit.jupiter.api.Assumptions.assumeTrue(condition, reason);
        }
    }

    private static boolean run(List<String> cmd, Path dir) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return false;
        }
        return p.exitValue() == 0;
    }

    private static Hop startPeer(Path dir, boolean forward, List<Process> started) throws Exception {
        String python = python();
        Path script = Path.of("src/test/python/omniorb_peer.py").toAbsolutePath();
        ProcessBuilder pb = forward ? new ProcessBuilder(python, script.toString())
                : new ProcessBuilder(python, script.toString(), "--no-forward");
        pb.directory(dir.toFile()).redirectErrorStream(true).environment().put("PYTHONPATH", dir.toString());
        Process p = pb.start();
        started.add(p);
        AtomicReference<String> ior = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("IOR ")) {
                        ior.set(line.substring(4).trim());
                    }
                }
            } catch (IOException ignored) {
                // gone
            }
        }, "omni-peer-out");
        reader.setDaemon(true);
        reader.start();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> ior.get() != null || !p.isAlive());
        assertNotEquals(null, ior.get(), "the Python peer printed no IOR");
        return HopHelper.unchecked_narrow(orb.string_to_object(ior.get()));
    }

    @Test
    void pythonPeerForwardsTheContext() throws Exception {
        String python = python();
        assumeTrue(python != null, "no -Ddthreads.test.omniorb.python");
        assumeTrue(run(List.of(python, "-c", "import omniORB"), work), "no omniORBpy in " + python);
        Path omniidl = Path.of(python).toAbsolutePath().getParent().resolve("omniidl");
        assumeTrue(Files.isExecutable(omniidl), "no omniidl next to " + python);
        Path idl = Path.of("src/test/idl/hop.idl").toAbsolutePath();
        assumeTrue(run(List.of(omniidl.toString(), "-bpython", idl.toString()), work), "omniidl failed");

        List<Process> started = new java.util.ArrayList<>();
        try {
            long me = KernelLink.currentClass();
            Hop peer = startPeer(work, true, started);
            assertEquals(me, peer.chainSame(self, peer, 1), "Java -> Python -> Java");
            assertEquals(me, peer.chainSame(self, peer, 3), "Java -> Python -> Java -> Python -> Java");
            long x = ThreadClass.of(0x0bad_cafe, 70);
            try (ClassScope s = DThreads.bind(x)) {
                assertEquals(x, peer.chainSame(self, peer, 1));
            }

            // a class encoded by omniORB itself (little-endian on x86, uninitialized padding)
            long c = ThreadClass.of(0x2a, 7);
            assertEquals(c, peer.originate(self, c));
            long c2 = ThreadClass.of(0xfedc_ba98, 0x7654_3210);
            assertEquals(c2, peer.originate(self, c2));

            Hop control = startPeer(work, false, started);
            long seen = control.chainSame(self, control, 1);
            assertNotEquals(me, seen, "without forwarding the Java hop runs as a fresh class");
            assertEquals(DThreads.siteId(), ThreadClass.siteId(seen));
        } finally {
            for (Process p : started) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
    }
}
