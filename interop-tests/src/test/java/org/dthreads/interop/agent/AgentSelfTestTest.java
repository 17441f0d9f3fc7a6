package org.dthreads.interop.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import static org.dthreads.interop.agent.ForkedJvm.AGENT;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** An agent jar that cannot rewrite (a dependency left out) says so at start and leaves the application alone. */
@Timeout(60)
class AgentSelfTestTest {

    @Test
    void anAgentJarWithoutPartOfItsRewriterReportsItAndTheApplicationRuns(@TempDir Path dir) throws Exception {
        Path broken = dir.resolve("dthreads-agent.jar");
        copyWithout(AGENT, broken, "org/dthreads/agent/shaded/asm/commons/");
        Process java = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-javaagent:" + broken, "-version").redirectErrorStream(true).start();
        assertTrue(java.waitFor(50, TimeUnit.SECONDS));
        String out = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, java.exitValue(), out);
        assertTrue(out.contains("this agent jar cannot rewrite classes"), out);
        assertTrue(!out.contains("agent started"), out);
    }

    private static void copyWithout(Path from, Path to, String prefix) throws IOException {
        try (ZipFile in = new ZipFile(from.toFile()); ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(to))) {
            Enumeration<? extends ZipEntry> entries = in.entries();
            while (entries.hasMoreElements()) {
                ZipEntry e = entries.nextElement();
                if (e.getName().startsWith(prefix)) {
                    continue;
                }
                out.putNextEntry(new ZipEntry(e.getName()));
                in.getInputStream(e).transferTo(out);
                out.closeEntry();
            }
        }
    }
}
