package org.dthreads.monitor.internal.rewriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.util.CheckClassAdapter;

/**
 * Class-file versions and source shapes. The fixtures ({@code src/test/resources/shapes}: {@code java8}
 * for every release, {@code java17} from 17 on, {@code java25} for javac 25 only) are compiled at test
 * time with {@code --release 8}, {@code --release 17} and by the Temurin 25 javac (version 69), then
 * rewritten, verified (ASM's {@link CheckClassAdapter}; for version 69 the same analysis with super-types
 * read from bytes, {@link BytesVerifier}), loaded (the JVM verifier runs at link) and run: each fixture's
 * {@code run()} returns a transcript (results, {@code Thread.holdsLock} inside and outside blocks, counts
 * that lose updates without exclusion), which must be the same for the original and the rewritten classes.
 * Version-69 classes run in a forked Temurin 25 JVM ({@link ShapesMain}); the test JVM is 17.
 */
@Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a looping fixture fails, not hangs
class RewriterShapesTest {

    static final Path JAVAC_25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/javac");
    static final Path JAVA_25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");

    static final List<String> JAVA8_FIXTURES = List.of("Lambdas", "InnerClasses", "Constructors", "EnumShape",
            "InterfaceShape", "NativeShape", "TryShapes", "Nested", "LockTargets", "Routes");

    @TempDir
    Path temp;

    @ParameterizedTest(name = "--release {0}")
    @ValueSource(ints = {8, 17})
    void compiledWithReleaseRewritesVerifiesLoadsAndBehavesTheSame(int release) throws Exception {
        Path out = temp.resolve("classes");
        List<Path> sources = new ArrayList<>(sources("java8"));
        List<String> fixtures = new ArrayList<>(JAVA8_FIXTURES);
        if (release >= 17) {
            sources.addAll(sources("java17"));
            fixtures.add("RecordShape");
        }
        compile(out, List.of("--release", String.valueOf(release)), sources);
        Map<String, byte[]> original = classes(out);
        assertTrue(original.values().stream().allMatch(b -> major(b) == 44 + release), "class-file version of release " + release);

        try (URLClassLoader originalLoader = new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader())) {
            Map<String, byte[]> rewritten = rewriteAll(original, originalLoader);
            for (Map.Entry<String, byte[]> e : rewritten.entrySet()) {
                StringWriter problems = new StringWriter();
                CheckClassAdapter.verify(new ClassReader(e.getValue()), originalLoader, false, new PrintWriter(problems));
                assertEquals("", problems.toString(), e.getKey());
                assertEquals(major(original.get(e.getKey())), major(e.getValue()), "the version is kept: " + e.getKey());
            }
            checkNativeMethodsStayNativeAndSynchronized(rewritten.get("shapes/NativeShape"));
            ClassLoader rewrittenLoader = new BytesLoader(rewritten);
            for (String fixture : fixtures) {
                String expected = ShapesMain.run(originalLoader, fixture);
                String actual = ShapesMain.run(rewrittenLoader, fixture);
                System.out.println("release " + release + " " + fixture + ": " + actual);
                assertFalse(expected.startsWith("FAILED"), expected);
                assertEquals(expected, actual, fixture + " (release " + release + ")");
            }
        }
    }

    @Test
    void compiledByJavac25RewritesVerifiesAndBehavesTheSameOnJava25() throws Exception {
        assumeTrue(Files.isExecutable(JAVAC_25) && Files.isExecutable(JAVA_25),
                "Temurin 25 is not installed at " + JAVAC_25.getParent() + ": version-69 class files are not tested");
        Path out = temp.resolve("v69");
        Files.createDirectories(out);
        List<String> command = new ArrayList<>(List.of(JAVAC_25.toString(), "-nowarn", "-d", out.toString()));
        Stream.of("java8", "java17", "java25").flatMap(set -> sources(set).stream()).forEach(p -> command.add(p.toString()));
        assertEquals("", run(command, 120), "javac 25");
        Map<String, byte[]> original = classes(out);
        assertTrue(original.values().stream().allMatch(b -> major(b) == 69), "version 69");

        Map<String, byte[]> rewritten;
        try (URLClassLoader resources = new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader())) {
            rewritten = rewriteAll(original, resources); // reads the v69 super-types as bytes, never loads them
            BytesVerifier verifier = new BytesVerifier(name -> {
                byte[] mine = original.get(name);
                if (mine != null) {
                    return mine;
                }
                try (var in = resources.getResourceAsStream(name + ".class")) {
                    return in == null ? null : in.readAllBytes();
                } catch (IOException e) {
                    return null;
                }
            });
            for (Map.Entry<String, byte[]> e : rewritten.entrySet()) {
                assertEquals("", verifier.verify(e.getValue()), e.getKey());
                assertEquals(69, major(e.getValue()));
            }
        }
        checkNativeMethodsStayNativeAndSynchronized(rewritten.get("shapes/NativeShape"));
        Path rewrittenDir = temp.resolve("v69-rewritten");
        for (Map.Entry<String, byte[]> e : rewritten.entrySet()) {
            Path file = rewrittenDir.resolve(e.getKey() + ".class");
            Files.createDirectories(file.getParent());
            Files.write(file, e.getValue());
        }
        List<String> fork = new ArrayList<>(List.of(JAVA_25.toString(), "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), ShapesMain.class.getName(),
                "original=" + out, "rewritten=" + rewrittenDir));
        List<String> fixtures = new ArrayList<>(JAVA8_FIXTURES);
        fixtures.add("RecordShape");
        fixtures.add("EarlyConstruction");
        fork.addAll(fixtures);
        Map<String, String> transcripts = new TreeMap<>();
        for (String line : run(fork, 120).lines().toList()) {
            String[] parts = line.split(" ", 3);
            if (parts.length == 3 && (parts[0].equals("original") || parts[0].equals("rewritten"))) {
                transcripts.put(parts[0] + " " + parts[1], parts[2]);
            }
        }
        for (String fixture : fixtures) {
            String expected = transcripts.get("original " + fixture);
            String actual = transcripts.get("rewritten " + fixture);
            System.out.println("javac 25 " + fixture + ": " + actual);
            assertTrue(expected != null && !expected.startsWith("FAILED"), fixture + ": " + expected);
            assertEquals(expected, actual, fixture + " (javac 25, run on Java 25)");
        }
    }

    /** A method whose synchronized block, once duplicated, passes 64 KiB: the class is left untouched. */
    @Test
    void aMethodNearTheSizeLimitLeavesItsClassUntouchedWithTheReason() throws Exception {
        Path src = temp.resolve("src/shapes");
        Files.createDirectories(src);
        Files.writeString(src.resolve("Big.java"), bigSource("Big", 4000), StandardCharsets.UTF_8);
        Files.writeString(src.resolve("Medium.java"), bigSource("Medium", 1500), StandardCharsets.UTF_8);
        Path out = temp.resolve("big");
        compile(out, List.of("--release", "17"), List.of(src.resolve("Big.java"), src.resolve("Medium.java")));
        Map<String, byte[]> original = classes(out);
        try (URLClassLoader loader = new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader())) {
            MonitorRewriter.Result big = MonitorRewriter.rewrite(original.get("shapes/Big"), loader);
            assertNull(big.bytes(), "never half-rewritten");
            assertTrue(big.skipReason().contains("too large"), big.skipReason());
            System.out.println("Big skipped: " + big.skipReason());

            MonitorRewriter.Result medium = MonitorRewriter.rewrite(original.get("shapes/Medium"), loader);
            assertTrue(medium.rewritten(), medium.skipReason());
            Class<?> rewritten = new BytesLoader(Map.of("shapes/Medium", medium.bytes())).loadClass("shapes.Medium");
            Class<?> plain = loader.loadClass("shapes.Medium");
            int[] input = {3, 1, 4, 1, 5, 9, 2, 6};
            assertEquals(plain.getMethod("compute", int[].class).invoke(null, (Object) input),
                    rewritten.getMethod("compute", int[].class).invoke(null, (Object) input));
        }
    }

    private static String bigSource(String name, int statements) {
        StringBuilder s = new StringBuilder("package shapes;\npublic class " + name + " {\n"
                + "  static final Object LOCK = new Object();\n  public static int compute(int[] a) {\n    int s = 0;\n"
                + "    synchronized (LOCK) {\n");
        for (int i = 0; i < statements; i++) {
            s.append("      s += a[").append(i % 8).append("] * ").append(i % 100).append(";\n");
        }
        return s.append("    }\n    return s;\n  }\n}\n").toString();
    }

    private static void checkNativeMethodsStayNativeAndSynchronized(byte[] rewritten) {
        ClassNode node = new ClassNode();
        new ClassReader(rewritten).accept(node, 0);
        int natives = 0;
        for (MethodNode m : node.methods) {
            if ((m.access & Opcodes.ACC_NATIVE) != 0) {
                natives++;
                assertTrue((m.access & Opcodes.ACC_SYNCHRONIZED) != 0, m.name + " keeps ACC_SYNCHRONIZED (the JVM's monitor)");
            } else if (m.name.equals("javaOp")) {
                assertEquals(0, m.access & Opcodes.ACC_SYNCHRONIZED, "javaOp is lowered");
            }
        }
        assertEquals(2, natives);
        assertTrue(node.visibleAnnotations == null || node.visibleAnnotations.stream()
                .noneMatch(a -> a.desc.equals(MonitorRewriter.REWRITTEN_DESCRIPTOR)),
                "no @Rewritten: instances stay native, so the native method and the Java ones exclude each other");
    }

    static Map<String, byte[]> rewriteAll(Map<String, byte[]> original, ClassLoader loader) {
        Map<String, byte[]> rewritten = new TreeMap<>();
        for (Map.Entry<String, byte[]> e : original.entrySet()) {
            MonitorRewriter.Result result = MonitorRewriter.rewrite(e.getValue(), loader);
            assertTrue(result.rewritten(), () -> e.getKey() + " skipped: " + result.skipReason());
            rewritten.put(e.getKey(), result.bytes());
        }
        return rewritten;
    }

    static List<Path> sources(String set) {
        URL root = RewriterShapesTest.class.getResource("/shapes/" + set + "/shapes");
        try (Stream<Path> files = Files.list(Path.of(root.toURI()))) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static void compile(Path out, List<String> options, List<Path> sources) throws IOException {
        Files.createDirectories(out);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> args = new ArrayList<>(options);
        args.addAll(List.of("-nowarn", "-Xlint:-options", "-d", out.toString()));
        sources.forEach(p -> args.add(p.toString()));
        StringWriter diagnostics = new StringWriter();
        int status = javac.run(null, null, null, args.toArray(String[]::new));
        assertEquals(0, status, "javac " + options + diagnostics);
    }

    static Map<String, byte[]> classes(Path dir) throws IOException {
        Map<String, byte[]> classes = new LinkedHashMap<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
                String name = dir.relativize(p).toString().replace(java.io.File.separatorChar, '/');
                classes.put(name.substring(0, name.length() - ".class".length()), Files.readAllBytes(p));
            }
        }
        return classes;
    }

    static int major(byte[] classFile) {
        return ((classFile[6] & 0xFF) << 8) | (classFile[7] & 0xFF);
    }

    /** Runs a process; returns its standard output, asserting exit 0 (stderr in the message). */
    static String run(List<String> command, int timeoutSeconds) throws Exception {
        Path stdout = Files.createTempFile("shapes", ".out");
        Path stderr = Files.createTempFile("shapes", ".err");
        try {
            Process p = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("timed out: " + command.get(0));
            }
            String err = Files.readString(stderr);
            assertEquals(0, p.exitValue(), () -> command.get(0) + " failed: " + err);
            String out = Files.readString(stdout);
            return command.get(0).endsWith("javac") ? out + err.strip() : out;
        } finally {
            Files.deleteIfExists(stdout);
            Files.deleteIfExists(stderr);
        }
    }

    /** Defines the given classes (internal names) itself, everything else from the test loader. */
    static final class BytesLoader extends ClassLoader {
        private final Map<String, byte[]> classes;

        BytesLoader(Map<String, byte[]> classes) {
            super(RewriterShapesTest.class.getClassLoader());
            this.classes = classes;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                byte[] bytes = classes.get(name.replace('.', '/'));
                if (bytes == null) {
                    return super.loadClass(name, resolve);
                }
                Class<?> c = findLoadedClass(name);
                return c != null ? c : defineClass(name, bytes, 0, bytes.length);
            }
        }
    }
}
