package org.dthreads.interop.agent;

import static org.dthreads.interop.agent.ForkedJvm.AGENT;
import static org.dthreads.interop.agent.ForkedJvm.classPath;
import static org.dthreads.interop.agent.ForkedJvm.java;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.dthreads.interop.agent.ForkedJvm.Result;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The macro benchmark's kind of workload (several threads on an in-memory H2, a library heavy in
 * synchronized) gives the same results without dthreads, with the agent (H2 rewritten at load) and
 * with H2 instrumented offline. Not timed: see benchmarks {@code org.dthreads.benchmarks.agent}.
 */
class LibraryWorkloadTest {

    @TempDir
    Path tmp;

    @BeforeAll
    static void agentIsBuilt() {
        ForkedJvm.assertAgentBuilt();
    }

    @Test
    void h2GivesTheSameResultsWithAndWithoutDthreads() throws Exception {
        Path fixtures = ForkedJvm.fixtures(tmp.resolve("in"));
        Path h2 = h2Jar();
        String main = "example.conformance.H2Clients";

        Result plain = java("-cp", classPath(fixtures, h2), main, "4", "300");
        assertEquals(0, plain.exit(), plain::describe);
        assertTrue(plain.out().contains("totals: 1200 rows"), plain::describe);

        Result agent = java("-javaagent:" + AGENT, "-Ddthreads.debug=true", "-cp", classPath(fixtures, h2), main, "4",
                "300");
        assertEquals(0, agent.exit(), agent::describe);
        assertEquals(plain.out(), agent.out());
        assertTrue(agent.err().lines().anyMatch(l -> l.matches("dthreads \\[INFO\\] summary: [1-9]\\d{2,} classes rewritten.*")),
                agent::describe); // H2's classes were rewritten

        Path h2Instrumented = tmp.resolve("h2-dthreads.jar");
        Result instrument = java("-jar", AGENT.toString(), "instrument", "-q", h2.toString(), h2Instrumented.toString());
        assertEquals(0, instrument.exit(), instrument::describe);
        Result offline = java("-cp", classPath(fixtures, h2Instrumented, AGENT), main, "4", "300");
        assertEquals(0, offline.exit(), offline::describe);
        assertEquals(plain.out(), offline.out());
    }

    private static Path h2Jar() throws IOException {
        try {
            return Path.of(org.h2.Driver.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IOException(e);
        }
    }
}
