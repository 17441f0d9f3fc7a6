package org.dthreads.interop.agent;

import static org.dthreads.interop.agent.ForkedJvm.AGENT;
import static org.dthreads.interop.agent.ForkedJvm.classPath;
import static org.dthreads.interop.agent.ForkedJvm.java;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.dthreads.interop.agent.ForkedJvm.Result;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance program ({@code example.conformance.Conformance}) behaves the same without
 * dthreads, with the agent, and after the offline instrumenter without the agent; the probe shows
 * that the emulated monitors were really used in the last two. Also the agent's scope, its start
 * line and debug summary, classes loaded before it, and named modules.
 */
class AgentConformanceTest {

    static final String MAIN = "example.conformance.Conformance";

    @TempDir
    Path tmp;

    @BeforeAll
    static void agentIsBuilt() {
        ForkedJvm.assertAgentBuilt();
    }

    private static List<String> withoutProbe(Result r) {
        List<String> lines = r.lines();
        assertTrue(!lines.isEmpty() && lines.get(lines.size() - 1).startsWith("probe: "), r::describe);
        return lines.subList(0, lines.size() - 1);
    }

    private static String probe(Result r) {
        List<String> lines = r.lines();
        return lines.get(lines.size() - 1);
    }

    @Test
    void sameOutputWithoutAgentWithAgentAndInstrumented() throws IOException {
        Path in = ForkedJvm.fixtures(tmp.resolve("in"));
        Path out = tmp.resolve("out");

        Result plain = java("-cp", in.toString(), MAIN);
        assertEquals(0, plain.exit(), plain::describe);
        assertEquals("probe: native", probe(plain), plain::describe);
        assertEquals("synchronized method count: 80000", plain.lines().get(0));

        Result agent = java("-javaagent:" + AGENT, "-Ddthreads.debug=true", "-cp", in.toString(), MAIN);
        assertEquals(0, agent.exit(), agent::describe);
        assertEquals(withoutProbe(plain), withoutProbe(agent));
        assertEquals("probe: emulated", probe(agent), agent::describe);
        // exactly one INFO start line: version, site id, scope
        List<String> started = agent.err().lines().filter(l -> l.contains("agent started")).toList();
        assertEquals(1, started.size(), agent::describe);
        assertTrue(started.get(0).matches("INFO: dthreads \\S+ agent started: site \\d+, rewriting all classes except .*"),
                started.get(0));
        // -Ddthreads.debug=true: the summary of what was rewritten, at exit
        assertTrue(agent.err().lines().anyMatch(l -> l.matches("dthreads \\[INFO\\] summary: \\d+ classes rewritten .*")),
                agent::describe);

        Result instrument = java("-jar", AGENT.toString(), "instrument", in.toString(), out.toString());
        assertEquals(0, instrument.exit(), instrument::describe);
        assertTrue(instrument.out().contains("classes seen: "), instrument::describe);
        assertTrue(instrument.out().contains("skipped: 0"), instrument::describe);

        Result offline = java("-cp", classPath(out, AGENT), MAIN);
        assertEquals(0, offline.exit(), offline::describe);
        assertEquals(withoutProbe(plain), withoutProbe(offline));
        assertEquals("probe: emulated", probe(offline), offline::describe);
        assertTrue(!offline.err().contains("agent started"), offline::describe);
    }

    @Test
    void excludedPackageKeepsTheJvmsMonitors() throws IOException {
        Path in = ForkedJvm.fixtures(tmp.resolve("in"));
        Result agent = java("-javaagent:" + AGENT, "-Ddthreads.exclude=example.conformance.", "-cp", in.toString(),
                "example.conformance.Probe");
        assertEquals(List.of("probe: native"), agent.lines(), agent::describe);
        assertTrue(agent.err().contains("excluding example.conformance."), agent::describe);

        Result agentArgs = java("-javaagent:" + AGENT + "=exclude=example.conformance.", "-cp", in.toString(),
                "example.conformance.Probe");
        assertEquals(List.of("probe: native"), agentArgs.lines(), agentArgs::describe);

        Path out = tmp.resolve("out");
        Result instrument = java("-jar", AGENT.toString(), "instrument", "--exclude", "example.conformance.",
                in.toString(), out.toString());
        assertEquals(0, instrument.exit(), instrument::describe);
        assertTrue(instrument.out().contains("rewritten (monitors): 0 "), instrument::describe);
        assertTrue(instrument.out().contains("x out of scope"), instrument::describe);
        Result offline = java("-cp", classPath(out, AGENT), "example.conformance.Probe");
        assertEquals(List.of("probe: native"), offline.lines(), offline::describe);

        Path included = tmp.resolve("included");
        Result sysProp = java("-Ddthreads.exclude=example.", "-Ddthreads.include=example.conformance.Probe", "-jar",
                AGENT.toString(), "instrument", in.toString(), included.toString());
        assertTrue(sysProp.out().contains("rewritten (monitors): 0 "), sysProp::describe); // an explicit exclude wins
    }

    @Test
    void classLoadedBeforeTheAgentStaysNative() throws IOException {
        Path in = ForkedJvm.fixtures(tmp.resolve("in"));
        Path early = tmp.resolve("early-agent.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Premain-Class", "example.conformance.EarlyAgent");
        try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(early), manifest)) {
            jar.putNextEntry(new JarEntry("example/conformance/EarlyAgent.class"));
            jar.write(Files.readAllBytes(in.resolve("example/conformance/EarlyAgent.class")));
            jar.closeEntry();
        }
        Result r = java("-javaagent:" + early, "-javaagent:" + AGENT, "-cp", in.toString(),
                "example.conformance.LateProbe");
        assertEquals(List.of("early: native", "late: emulated"), r.lines(), r::describe);
    }

    @Test
    void namedModuleOnTheModulePathIsRewritten() throws IOException {
        Path src = tmp.resolve("src");
        Path classes = tmp.resolve("mods/conf.mod");
        Files.createDirectories(src.resolve("example/modular"));
        Files.writeString(src.resolve("module-info.java"), "module conf.mod { requires java.management; }");
        Files.writeString(src.resolve("example/modular/Main.java"), """
                package example.modular;
                import java.lang.management.ManagementFactory;
                import java.lang.management.MonitorInfo;
                public class Main {
                    synchronized String check() {
                        long id = Thread.currentThread().getId();
                        MonitorInfo[] locked = ManagementFactory.getThreadMXBean()
                                .getThreadInfo(new long[] {id}, true, false)[0].getLockedMonitors();
                        for (MonitorInfo m : locked) {
                            if (m.getIdentityHashCode() == System.identityHashCode(this)) {
                                return "native";
                            }
                        }
                        return Thread.holdsLock(this) ? "emulated" : "not held";
                    }
                    public static void main(String[] args) {
                        System.out.println("module " + Main.class.getModule().getName() + ": " + new Main().check());
                    }
                }
                """);
        int rc = javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(),
                src.resolve("module-info.java").toString(), src.resolve("example/modular/Main.java").toString());
        assertEquals(0, rc);
        Result plain = java("--module-path", classes.getParent().toString(), "-m", "conf.mod/example.modular.Main");
        assertEquals(List.of("module conf.mod: native"), plain.lines(), plain::describe);
        Result agent = java("-javaagent:" + AGENT, "--module-path", classes.getParent().toString(), "-m",
                "conf.mod/example.modular.Main");
        assertEquals(List.of("module conf.mod: emulated"), agent.lines(), agent::describe);
    }

    @Test
    void dthreadsJarsAlsoOnTheClassPathShareOneRuntime() throws IOException {
        Path in = ForkedJvm.fixtures(tmp.resolve("in"));
        Path api = ForkedJvm.moduleJar("dthreads-api");
        Path monitorLib = ForkedJvm.moduleJar("monitor-lib");
        Result r = java("-javaagent:" + AGENT, "-cp", classPath(in, api, monitorLib), "example.conformance.OneRuntime",
                api.toString(), monitorLib.toString());
        assertEquals(List.of("api on the boot path: true", "second copy of the api: true",
                "same site id via the copy: true", "held via the copy, seen by rewritten code: true",
                "released via the copy: true"), r.lines(), r::describe);
    }
}
