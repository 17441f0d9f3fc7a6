package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.callbacks.RelaySite;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The site kit checks that the dthreads agent a site is launched with runs: a failed start-up is only logged by the
 * agent, and a site without it passes most tests on the ORB-initializer path alone.
 */
@ExtendWith(SitesExtension.class)
class SiteAgentCheckTest {

    @BeforeAll
    static void agentIsBuilt() {
        JrmpZigzagTest.agentIsBuilt();
    }

    @Test
    void aSiteWhoseAgentDoesNotStartFailsToStartWithTheAgentsMessage(SiteCluster cluster) throws IOException {
        // a partial build's agent jar (AgentSelfTestTest): the agent logs that it cannot rewrite, the JVM runs on
        Path broken = cluster.tempDir().resolve("dthreads-agent.jar");
        copyWithout(JrmpZigzagTest.AGENT, broken, "org/dthreads/agent/shaded/asm/commons/");
        long t0 = System.nanoTime();
        AssertionError e = assertThrows(AssertionError.class, () -> cluster.start(
                SiteSpec.app("A", RelaySite.class).javaAgent(JrmpZigzagTest.AGENT),
                SiteSpec.app("B", RelaySite.class).javaAgent(broken)));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        String m = e.getMessage();
        assertTrue(m.startsWith("site B was launched with the dthreads agent (" + broken + "), but the agent is not"
                + " running in it: "), m);
        assertTrue(m.contains("a class defined after start-up (dthreadsjunitprobe.AgentProbe) is not rewritten: the"
                + " agent's transformers are not installed"), m);
        assertTrue(m.contains("this agent jar cannot rewrite classes"), "the agent's own message: " + m);
        assertTrue(ms < 20_000, "failed at start-up, not after the ready timeout: " + ms + " ms");
        assertFalse(cluster.site("A").isAlive(), "the batch was killed");
    }

    @Test
    void aSiteWithTheAgentRunningStarts(SiteCluster cluster) {
        Site a = cluster.start(SiteSpec.app("A", RelaySite.class).javaAgent(JrmpZigzagTest.AGENT));
        assertTrue(a.isAlive());
    }

    private static void copyWithout(Path from, Path to, String prefix) throws IOException {
        try (ZipFile in = new ZipFile(from.toFile()); ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(to))) {
            Enumeration<? extends ZipEntry> entries = in.entries();
            while (entries.hasMoreElements()) {
                ZipEntry e = entries.nextElement();
                if (!e.getName().startsWith(prefix)) {
                    out.putNextEntry(new ZipEntry(e.getName()));
                    in.getInputStream(e).transferTo(out);
                    out.closeEntry();
                }
            }
        }
    }
}
