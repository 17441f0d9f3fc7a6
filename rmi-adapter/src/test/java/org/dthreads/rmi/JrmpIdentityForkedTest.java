package org.dthreads.rmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.dthreads.rmi.testing.AgentJars;
import org.dthreads.rmi.testing.ForkedJvm;
import org.dthreads.rmi.testing.RmiSite;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Thread identity over real JRMP between two forked JVMs, for each combination of client and server
 * with and without dthreads. The client prints the class it runs under and the class each remote
 * method saw; a callback (client -> server -> client) must come back under the client's class.
 */
@Timeout(120)
class JrmpIdentityForkedTest {

    private static final Duration START = Duration.ofSeconds(30);
    @TempDir
    static Path jars;
    private static Path agent;

    @BeforeAll
    static void buildAgent() throws Exception {
        agent = AgentJars.build(jars);
    }

    @Test
    void withDthreadsOnBothSitesEveryHopRunsUnderTheCallersClass() throws Exception {
        try (ForkedJvm server = ForkedJvm.start(agent, RmiSite.class.getName(), "server")) {
            ForkedJvm client = runClient(server, agent);
            String caller = client.value("client");
            assertEquals(caller, client.value("server"), client.transcript());
            assertEquals(caller, client.value("server.again"));
            assertEquals(caller, client.value("returned"), "a stub received as a return value carries the class");
            assertEquals(caller, client.value("callback"), "A -> B -> A callback keeps the class");
            assertEquals(caller, client.value("legacy.server"), "legacy *_Stub calls carry the class");
            assertEquals(caller, client.value("legacy.callback"));
            assertEquals(caller, client.value("client.after"));
            assertCallsWork(client);
        }
    }

    @Test
    void onJdk25EveryHopRunsUnderTheCallersClass() throws Exception {
        Path jdk25 = Path.of(System.getProperty("dthreads.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"));
        Assumptions.assumeTrue(Files.isExecutable(jdk25.resolve("bin/java")),
                "no JDK 25 at " + jdk25 + " (set -Ddthreads.jdk25=...)");
        try (ForkedJvm server = ForkedJvm.start(jdk25, agent, RmiSite.class.getName(), "server")) {
            String ready = server.awaitLine("READY", START);
            String port = ready.replaceAll(".*port=(\\d+).*", "$1");
            try (ForkedJvm client = ForkedJvm.start(jdk25, agent, RmiSite.class.getName(), "client", port)) {
                client.awaitSuccess(Duration.ofSeconds(60));
                String caller = client.value("client");
                assertEquals(caller, client.value("server"), client.transcript());
                assertEquals(caller, client.value("callback"));
                assertEquals(caller, client.value("legacy.callback"));
                assertCallsWork(client);
            }
        }
    }

    @Test
    void overSslSocketFactoriesEveryHopRunsUnderTheCallersClass() throws Exception {
        Path keystore = jars.resolve("ssl.p12");
        if (!Files.exists(keystore)) {
            Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                    "-genkeypair", "-alias", "site", "-keyalg", "EC", "-dname", "CN=localhost", "-validity", "2",
                    "-storetype", "PKCS12", "-keystore", keystore.toString(), "-storepass", "changeit")
                    .redirectErrorStream(true).start();
            org.junit.jupiter.api.Assertions.assertTrue(keytool.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) && keytool.exitValue() == 0,
                    new String(keytool.getInputStream().readAllBytes()));
        }
        java.util.List<String> tls = java.util.List.of("-Djavax.net.ssl.keyStore=" + keystore,
                "-Djavax.net.ssl.keyStorePassword=changeit", "-Djavax.net.ssl.trustStore=" + keystore,
                "-Djavax.net.ssl.trustStorePassword=changeit");
        Path java = Path.of(System.getProperty("java.home"));
        try (ForkedJvm server = ForkedJvm.start(java, tls, agent, RmiSite.class.getName(), "server-ssl")) {
            String port = server.awaitLine("READY", START).replaceAll(".*port=(\\d+).*", "$1");
            try (ForkedJvm client = ForkedJvm.start(java, tls, agent, RmiSite.class.getName(), "client", port)) {
                client.awaitSuccess(Duration.ofSeconds(60));
                String caller = client.value("client");
                assertEquals(caller, client.value("server"), client.transcript());
                assertEquals(caller, client.value("callback"));
                assertCallsWork(client);
            }
        }
    }

    @Test
    void aDthreadsClientFallsBackToThePlainMethodOnAServerWithout() throws Exception {
        try (ForkedJvm server = ForkedJvm.start(null, RmiSite.class.getName(), "server")) {
            ForkedJvm client = runClient(server, agent);
            assertNotEquals(client.value("client"), client.value("server"));
            assertCallsWork(client);
            long fallbackLines = client.stderr().stream().filter(l -> l.contains("does not run dthreads")).count();
            assertEquals(1, fallbackLines, "logged once:\n" + client.transcript());
        }
    }

    @Test
    void aPlainClientIsServedByADthreadsServer() throws Exception {
        try (ForkedJvm server = ForkedJvm.start(agent, RmiSite.class.getName(), "server")) {
            ForkedJvm client = runClient(server, null);
            assertNotEquals(client.value("client"), client.value("server"));
            assertCallsWork(client);
        }
    }

    @Test
    void controlWithoutDthreadsTheCallbackRunsUnderAnotherClass() throws Exception {
        try (ForkedJvm server = ForkedJvm.start(null, RmiSite.class.getName(), "server")) {
            ForkedJvm client = runClient(server, null);
            assertNotEquals(client.value("client"), client.value("callback"));
            assertCallsWork(client);
        }
    }

    private static ForkedJvm runClient(ForkedJvm server, Path clientAgent) throws Exception {
        String ready = server.awaitLine("READY", START);
        String port = ready.replaceAll(".*port=(\\d+).*", "$1");
        ForkedJvm client = ForkedJvm.start(clientAgent, RmiSite.class.getName(), "client", port);
        try {
            client.awaitSuccess(Duration.ofSeconds(60));
        } finally {
            client.close();
        }
        return client;
    }

    private static void assertCallsWork(ForkedJvm client) {
        assertEquals("ab", client.value("concat"));
        assertEquals("3.5", client.value("mix"));
        assertEquals("EchoException:boom", client.value("fail"), "declared exceptions pass through");
    }
}
