package org.dthreads.interop.agent;

import static org.dthreads.interop.agent.ForkedJvm.AGENT;
import static org.dthreads.interop.agent.ForkedJvm.java;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.dthreads.interop.agent.ForkedJvm.Result;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 21 under the real agent: {@code example.jdklocks.JdkLocks} prints the same exclusion plainly and
 * with the agent for a parallel-capable loader's {@code getClassLoadingLock} and a Writer's own lock
 * (without the native marks the agent's run printed "not excluded" for both).
 */
class JdkLockedObjectsAgentTest {

    @TempDir
    Path tmp;

    @BeforeAll
    static void agentIsBuilt() {
        ForkedJvm.assertAgentBuilt();
    }

    @Test
    void jdkLockedObjectsAreExcludedWithAndWithoutTheAgent() throws IOException {
        Path classes = Path.of(ForkedJvm.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        Path target = tmp.resolve("example/jdklocks");
        Files.createDirectories(target);
        try (Stream<Path> files = Files.list(classes.resolve("example/jdklocks"))) {
            for (Path f : files.toList()) {
                Files.copy(f, target.resolve(f.getFileName().toString()));
            }
        }
        List<String> expected = List.of("class loading lock: excluded", "writer lock: excluded");
        Result plain = java("-cp", tmp.toString(), "example.jdklocks.JdkLocks");
        assertEquals(0, plain.exit(), plain::describe);
        assertEquals(expected, plain.lines(), plain::describe);
        Result agent = java("-javaagent:" + AGENT, "-cp", tmp.toString(), "example.jdklocks.JdkLocks");
        assertEquals(0, agent.exit(), agent::describe);
        assertEquals(expected, agent.lines(), agent::describe);
    }
}
