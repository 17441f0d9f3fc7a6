package org.dthreads.interop.agent;

import static org.dthreads.interop.agent.ForkedJvm.java;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.dthreads.interop.agent.ForkedJvm.Result;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's fixed metaspace (issue 16): a plain agent start loads neither {@code java.util.logging} (for its
 * start line), nor the security providers ({@code SecureRandom} for the site id and the boot jar's name,
 * {@code MessageDigest} for the JRMP hashes), yet writes the same start line as j.u.l.; a j.u.l. configuration
 * still gets the line.
 */
class AgentStartFootprintTest {

    static final String MAIN = "example.conformance.Hello";
    static final Path AGENT = ForkedJvm.AGENT.normalize();
    /**
     * Loaded by the agent's start (and its first rewrite of a {@code Serializable} class) before issue 16: about 200
     * classes, 1.4 MB of metaspace in all.
     */
    static final List<String> NOT_AT_START = List.of("java.util.logging.LogManager", "java.security.SecureRandom",
            "java.security.MessageDigest", "java.security.Provider");

    @TempDir
    Path tmp;

    @BeforeAll
    static void agentIsBuilt() {
        ForkedJvm.assertAgentBuilt();
    }

    private static Set<String> loaded(Path log) throws IOException {
        // -Xlog:class+load lines: "[...][info][class,load] java.lang.Object source: ..."
        return Files.readAllLines(log).stream().map(l -> l.substring(l.indexOf("] ", l.indexOf("class,load")) + 2))
                .map(l -> l.substring(0, l.indexOf(' '))).collect(Collectors.toSet());
    }

    @Test
    void aPlainStartLoadsNeitherJulNorTheSecurityProvidersAndWritesJulsLine() throws IOException {
        Path in = ForkedJvm.fixtures(tmp.resolve("in"));
        Path plainLog = tmp.resolve("plain.log");
        Path agentLog = tmp.resolve("agent.log");
        Result plain = java("-Xlog:class+load:file=" + plainLog, "-Duser.language=en", "-Duser.country=US", "-cp",
                in.toString(), MAIN);
        Result agent = java("-Xlog:class+load:file=" + agentLog, "-Duser.language=en", "-Duser.country=US",
                "-Ddthreads.debug=true", "-javaagent:" + AGENT, "-cp", in.toString(), MAIN);
        assertEquals(0, plain.exit(), plain::describe);
        assertEquals(0, agent.exit(), agent::describe);
        Set<String> withoutAgent = loaded(plainLog);
        Set<String> withAgent = loaded(agentLog);
        assertEquals(List.of("hello 2"), agent.lines(), agent::describe);
        assertTrue(withAgent.contains("org.dthreads.internal.IdentityKernel"), "the runtime started");
        assertTrue(agent.err().lines().anyMatch(l -> l.matches("dthreads \\[INFO\\] summary: [1-9]\\d* classes rewritten .*")),
                agent::describe); // Hello's Counter rewritten, its serialVersionUID pinned
        for (String c : NOT_AT_START) {
            assertFalse(withoutAgent.contains(c), c + " is loaded by the program itself: pick another fixture");
            assertFalse(withAgent.contains(c), c + " loaded by the agent's start");
        }
        // j.u.l.'s SimpleFormatter layout, as before: date, time, source; then level and message
        List<String> err = agent.err().lines().toList();
        int at = err.indexOf(err.stream().filter(l -> l.contains("agent started")).findFirst().orElseThrow());
        assertTrue(err.get(at - 1).matches("[A-Z][a-z]{2} \\d{2}, \\d{4} \\d{1,2}:\\d{2}:\\d{2} [AP]M"
                + " org\\.dthreads\\.agent\\.internal\\.Installer install"), agent::describe);
        assertTrue(err.get(at).matches("INFO: dthreads \\S+ agent started: site \\d+, rewriting all classes except .*"),
                agent::describe);
    }

    @Test
    void aJulConfigurationStillGetsTheLine() throws IOException {
        Path in = ForkedJvm.fixtures(tmp.resolve("in"));
        Path conf = tmp.resolve("logging.properties");
        Files.writeString(conf, "handlers=java.util.logging.ConsoleHandler\n.level=INFO\n"
                + "java.util.logging.ConsoleHandler.level=INFO\n"
                + "java.util.logging.ConsoleHandler.formatter=java.util.logging.SimpleFormatter\n"
                + "java.util.logging.SimpleFormatter.format=configured %3$s %4$s %5$s%n\n");
        Result agent = java("-Djava.util.logging.config.file=" + conf, "-javaagent:" + AGENT, "-cp", in.toString(),
                MAIN);
        assertEquals(0, agent.exit(), agent::describe);
        assertTrue(agent.err().lines().anyMatch(l -> l.matches(
                "configured org\\.dthreads\\.agent INFO dthreads \\S+ agent started: site \\d+, rewriting .*")),
                agent::describe);

        Files.writeString(conf, "handlers=java.util.logging.ConsoleHandler\n.level=INFO\norg.dthreads.level=WARNING\n");
        Result quiet = java("-Djava.util.logging.config.file=" + conf, "-javaagent:" + AGENT, "-cp", in.toString(),
                MAIN);
        assertEquals(0, quiet.exit(), quiet::describe);
        assertFalse(quiet.err().contains("agent started"), quiet::describe);
    }
}
