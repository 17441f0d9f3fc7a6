package org.dthreads.release;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * What a public repository (Maven Central) requires of every published module, checked on the
 * files this reactor just built, so that a release is one command away. A module is published unless
 * its pom sets {@code maven.deploy.skip}; its metadata is its own pom's plus what it inherits from the
 * parent pom (no module overrides the parent's release metadata).
 */
class ReleaseReadinessTest {

    private static final Path ROOT = Path.of(System.getProperty("dthreads.root", "..")).toAbsolutePath().normalize();
    private static final String VERSION = System.getProperty("dthreads.version");
    private static final Pom PARENT = Pom.read(ROOT.resolve("pom.xml"));

    @Test
    void parentPomCarriesTheReleaseMetadataEveryModuleInherits() throws IOException {
        Path license = ROOT.resolve("LICENSE");
        assertTrue(Files.isRegularFile(license), "LICENSE missing at " + license);
        assertTrue(Files.readString(license).contains("Apache License"), "LICENSE is not the Apache License text");
        assertEquals("Apache-2.0", PARENT.text("licenses/license/name"), "parent pom: licenses");
        assertEquals("https://www.apache.org/licenses/LICENSE-2.0.txt", PARENT.text("licenses/license/url"));
        for (String required : List.of("url", "description", "scm/connection", "scm/developerConnection", "scm/url",
                "developers/developer/name")) {
            assertNotBlank(PARENT.text(required), "parent pom: " + required);
        }
    }

    @Test
    void everyPublishedModuleNamesAndDescribesItselfAndInheritsTheRest() {
        List<Module> published = published();
        assertTrue(published.size() >= 6, "published modules found: " + published);
        for (Module m : published) {
            assertNotBlank(m.pom.text("name"), m + ": name");
            assertNotBlank(m.pom.text("description"), m + ": description");
            for (String inherited : List.of("url", "licenses", "scm", "developers")) {
                if (m.pom.text("parent") != null) {
                    assertNull(m.pom.text(inherited), m + " overrides the parent's " + inherited);
                } else { // the BOM: standalone, so it repeats the parent's metadata
                    assertEquals(PARENT.text(inherited).replaceAll("\\s+", " "), String.valueOf(m.pom.text(inherited)).replaceAll("\\s+", " "),
                            m + " has no parent, its " + inherited + " must equal the parent pom's");
                }
            }
        }
    }

    @Test
    void modulesThatAreNotPublishedAreNeitherInstalledNorDocumented() {
        for (Module m : modules()) {
            if (!m.published()) {
                for (String skip : List.of("maven.source.skip", "maven.javadoc.skip", "maven.install.skip")) {
                    assertEquals("true", m.pom.text("properties/" + skip), m + ": " + skip);
                }
            }
        }
    }

    @Test
    void everyPublishedJarHasItsSourcesAndJavadocJarsAndItsVersionInTheManifest() throws IOException {
        for (Module m : published()) {
            if (!List.of("jar", "maven-plugin").contains(m.packaging())) {
                continue;
            }
            try (JarFile main = m.jar("")) {
                assertEquals(VERSION, main.getManifest().getMainAttributes().getValue(Attributes.Name.IMPLEMENTATION_VERSION),
                        m + ": Implementation-Version");
                assertTrue(main.stream().anyMatch(e -> e.getName().endsWith(".class")), m + ": no classes");
            }
            try (JarFile sources = m.jar("-sources")) {
                assertTrue(sources.stream().anyMatch(e -> e.getName().endsWith(".java")), m + ": sources jar without sources");
            }
            try (JarFile javadoc = m.jar("-javadoc")) {
                assertNotNull(javadoc.getEntry("index.html"), m + ": javadoc jar without index.html");
            }
        }
    }

    @Test
    void theAgentIsPublishedAsTheSelfContainedJarWithACompleteManifest() throws IOException {
        Module agent = module("dthreads-agent");
        assertEquals("dthreads-agent", agent.finalName(), "./dthreads, .ci/run and interop-tests use target/dthreads-agent.jar");
        try (JarFile jar = agent.jar("")) {
            Attributes a = jar.getManifest().getMainAttributes();
            assertEquals("org.dthreads.agent.Main", a.getValue("Main-Class"));
            assertEquals("org.dthreads.agent.DThreadsAgent", a.getValue("Premain-Class"));
            assertEquals("org.dthreads.agent.DThreadsAgent", a.getValue("Agent-Class"));
            assertEquals("true", a.getValue("Can-Retransform-Classes"), "RmiAgentSupport retransforms RemoteObjectInvocationHandler");
            assertNull(a.getValue("Can-Redefine-Classes"), "the agent redefines no class");
            for (String entry : List.of("org/dthreads/agent/Main.class", "org/dthreads/DThreads.class",
                    "org/dthreads/monitor/internal/rewriter/MonitorRewriter.class", "org/dthreads/rmi/DThreadsRmi.class",
                    "org/dthreads/agent/shaded/asm/ClassReader.class")) {
                assertNotNull(jar.getEntry(entry), "agent jar lacks " + entry);
            }
            assertFalse(jar.stream().anyMatch(e -> e.getName().startsWith("org/objectweb/")), "agent jar carries unrelocated ASM");
        }
        // What gets installed as its pom: everything bundled is no longer a dependency.
        Pom reduced = Pom.read(agent.dir.resolve("target/dependency-reduced-pom.xml"));
        for (Pom.Element dependency : reduced.elements("dependencies/dependency")) {
            assertEquals("test", dependency.text("scope"), "the agent's installed pom depends on " + dependency.text("artifactId"));
        }
    }

    @Test
    void theBomManagesEveryPublishedLibraryAtTheReactorVersion() {
        Module bom = module("dthreads-bom");
        assertEquals(VERSION, bom.pom.text("version"), "dthreads-bom version");
        assertNull(bom.pom.text("parent"), "dthreads-bom must not inherit dthreads-parent's third-party versions");
        List<String> managed = new ArrayList<>();
        for (Pom.Element d : bom.pom.elements("dependencyManagement/dependencies/dependency")) {
            assertEquals("org.dthreads", d.text("groupId"));
            assertEquals("${project.version}", d.text("version"), d.text("artifactId"));
            managed.add(d.text("artifactId"));
        }
        List<String> libraries = published().stream().filter(m -> m.packaging().equals("jar")).map(Module::artifactId).toList();
        assertEquals(libraries.stream().sorted().toList(), managed.stream().sorted().toList(), "dthreads-bom's managed artifacts");
    }

    private static void assertNotBlank(String value, String what) {
        assertTrue(value != null && !value.isBlank(), what + " missing");
    }

    static List<Module> published() {
        return modules().stream().filter(Module::published).toList();
    }

    static Module module(String artifactId) {
        return modules().stream().filter(m -> m.artifactId().equals(artifactId)).findFirst()
                .orElseGet(() -> fail("no module " + artifactId));
    }

    static List<Module> modules() {
        List<Module> modules = new ArrayList<>();
        for (Pom.Element name : PARENT.elements("modules/module")) {
            Path dir = ROOT.resolve(name.text("."));
            modules.add(new Module(dir, Pom.read(dir.resolve("pom.xml"))));
        }
        return modules;
    }

    record Module(Path dir, Pom pom) {
        String artifactId() {
            return pom.text("artifactId");
        }

        String packaging() {
            String p = pom.text("packaging");
            return p == null ? "jar" : p;
        }

        boolean published() {
            return !"true".equals(pom.text("properties/maven.deploy.skip"));
        }

        String finalName() {
            String f = pom.text("build/finalName");
            return f != null ? f : artifactId() + "-" + VERSION;
        }

        JarFile jar(String classifier) throws IOException {
            Path jar = dir.resolve("target").resolve(finalName() + classifier + ".jar");
            assertTrue(Files.isRegularFile(jar), this + ": " + jar + " was not built");
            return new JarFile(jar.toFile());
        }

        @Override
        public String toString() {
            return artifactId();
        }
    }
}
