package org.dthreads.interop.agent;

import static org.dthreads.interop.agent.ForkedJvm.java;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.dthreads.interop.agent.ForkedJvm.Result;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the agent starts in JVMs set up as test harnesses and legacy deployments set them up: the agent given
 * twice, and a security manager.
 */
class AgentStartUpTest {

    static final String MAIN = AgentConformanceTest.MAIN;
    static final Path AGENT = ForkedJvm.AGENT.normalize();

    @TempDir
    Path tmp;

    @BeforeAll
    static void agentIsBuilt() {
        ForkedJvm.assertAgentBuilt();
    }

    static long count(Result r, String text) {
        return r.err().lines().filter(l -> l.contains(text)).count();
    }

    static String probe(Result r) {
        List<String> lines = r.lines();
        return lines.get(lines.size() - 1);
    }

    @Test
    void anAgentGivenTwiceStartsOnceAndSaysSoOnce() throws IOException {
        Path in = ForkedJvm.fixtures(tmp.resolve("in"));
        Result once = java("-javaagent:" + AGENT, "-cp", in.toString(), MAIN);
        Result twice = java("-javaagent:" + AGENT, "-javaagent:" + AGENT, "-cp", in.toString(), MAIN);
        assertEquals(0, twice.exit(), twice::describe);
        assertEquals(once.lines(), twice.lines(), twice::describe);
        assertTrue(probe(twice).startsWith("probe: emulated"), twice::describe);
        assertEquals(1, count(twice, "agent started"), twice::describe);
        assertEquals(1, count(twice, "given more than once"), twice::describe);
        assertEquals(0, count(once, "given more than once"), once::describe);
    }

    @Test
    void underASecurityManagerWithoutAGrantTheAgentSaysWhatToGrantAndTheProgramRuns() throws IOException {
        Path in = ForkedJvm.fixtures(tmp.resolve("in"));
        Path policy = tmp.resolve("app.policy");
        Files.writeString(policy, "grant codeBase \"" + in.toUri() + "-\" { permission java.security.AllPermission; };\n");
        Result r = java("-Djava.security.manager", "-Djava.security.policy=" + policy, "-javaagent:" + AGENT, "-cp",
                in.toString(), MAIN);
        assertEquals(0, r.exit(), r::describe);
        assertEquals("probe: native", probe(r), r::describe);
        assertEquals(1, count(r, "To run it, add to the policy: grant codeBase \"file:" + AGENT), r::describe);
    }

    @Test
    void underASecurityManagerThatGrantsTheAgentJarTheAgentRuns() throws IOException {
        Path in = ForkedJvm.fixtures(tmp.resolve("in"));
        Path policy = tmp.resolve("app.policy");
        Files.writeString(policy, "grant codeBase \"" + in.toUri() + "-\" { permission java.security.AllPermission; };\n"
                + "grant codeBase \"file:" + AGENT + "\" { permission java.security.AllPermission; };\n");
        Result plain = java("-cp", in.toString(), MAIN);
        Result r = java("-Djava.security.manager", "-Djava.security.policy=" + policy, "-javaagent:" + AGENT, "-cp",
                in.toString(), MAIN);
        assertEquals(0, r.exit(), r::describe);
        assertEquals(plain.lines().subList(0, plain.lines().size() - 1), r.lines().subList(0, r.lines().size() - 1),
                r::describe);
        assertTrue(probe(r).startsWith("probe: emulated"), r::describe);
        assertEquals(1, count(r, "agent started"), r::describe);
    }
}
