package org.dthreads.rmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.dthreads.rmi.testing.AgentJars;
import org.dthreads.rmi.testing.ForkedJvm;
import org.dthreads.rmi.testing.SkeletonSite;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server whose implementation has an rmic-style skeleton ({@code *_Skel}): {@code UnicastServerRef}
 * dispatches through it, and it refuses a twin's hash with {@code UnmarshalException: invalid method hash}
 * (not the JDK's own "unrecognized method hash" wording). A dthreads client must fall back to the plain
 * method, once per endpoint, and every call must work.
 */
@Timeout(120)
class SkeletonServerForkedTest {

    @TempDir
    static Path jars;
    private static Path agent;

    @BeforeAll
    static void buildAgent() throws Exception {
        agent = AgentJars.build(jars);
    }

    private static ForkedJvm call(Path serverAgent, Path clientAgent) throws Exception {
        try (ForkedJvm server = ForkedJvm.start(serverAgent, SkeletonSite.class.getName(), "server")) {
            String ready = server.awaitLine("READY", Duration.ofSeconds(30));
            assertTrue(ready.contains("stub=SkeletalImpl_Stub"), "the server must use the static stub and skeleton: " + ready);
            String port = ready.replaceAll(".*port=(\\d+).*", "$1");
            try (ForkedJvm client = ForkedJvm.start(clientAgent, SkeletonSite.class.getName(), "client", port)) {
                client.awaitSuccess(Duration.ofSeconds(60));
                return client;
            }
        }
    }

    @Test
    void aDthreadsClientFallsBackOnASkeletonServerWithoutDthreads() throws Exception {
        ForkedJvm client = call(null, agent);
        assertEquals("SkeletalImpl_Stub", client.value("stub"), client.transcript());
        assertEquals("5", client.value("add"), client.transcript());
        assertEquals("9", client.value("add.again"));
        assertNotEquals(client.value("client"), client.value("server"), "a plain server serves under its own class");
        long fallbackLines = client.stderr().stream().filter(l -> l.contains("does not run dthreads")).count();
        assertEquals(1, fallbackLines, "logged once:\n" + client.transcript());
    }

    @Test
    void aSkeletonServerWithDthreadsServesTheTwinsUnderTheCallersClass() throws Exception {
        ForkedJvm client = call(agent, agent);
        assertEquals("5", client.value("add"), client.transcript());
        assertEquals("9", client.value("add.again"));
        assertEquals(client.value("client"), client.value("server"), "the twin ran under the caller's class");
        assertTrue(client.stderr().stream().noneMatch(l -> l.contains("does not run dthreads")), client.transcript());
    }

    @Test
    void aPlainClientIsServedByASkeletonServerWithDthreads() throws Exception {
        ForkedJvm client = call(agent, null);
        assertEquals("5", client.value("add"), client.transcript());
        assertNotEquals(client.value("client"), client.value("server"));
    }

    @Test
    void controlAPlainClientIsServedByTheSkeleton() throws Exception {
        ForkedJvm client = call(null, null);
        assertEquals("5", client.value("add"), client.transcript());
    }
}
