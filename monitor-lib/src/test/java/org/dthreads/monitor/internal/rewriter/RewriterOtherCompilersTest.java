package org.dthreads.monitor.internal.rewriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.jdt.core.compiler.batch.BatchCompiler;
import org.jetbrains.kotlin.cli.common.ExitCode;
import org.jetbrains.kotlin.cli.jvm.K2JVMCompiler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.util.CheckClassAdapter;

/**
 * Class files from other compilers: the Eclipse compiler (ecj, the shapes fixtures, including the monitor
 * {@code Routes}) and kotlinc ({@code shapes/kotlin}: {@code synchronized { }}, {@code @Synchronized},
 * {@code (lock as Object).wait()/notify()}, a function reference to {@code notify}). Both run in-process at
 * test time; every class is rewritten, verified ({@link CheckClassAdapter}), loaded (the JVM verifier runs)
 * and each fixture's {@code run()} must return the same transcript rewritten as plain.
 */
@Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RewriterOtherCompilersTest {

    @TempDir
    Path temp;

    @ParameterizedTest(name = "ecj -{0}")
    @ValueSource(strings = {"1.8", "17"})
    void eclipseCompilerClassesRewriteVerifyAndBehaveTheSame(String level) throws Exception {
        Path out = temp.resolve("ecj");
        List<String> args = new ArrayList<>(List.of("-" + level, "-nowarn", "-proc:none", "-d", out.toString()));
        List<String> fixtures = new ArrayList<>(RewriterShapesTest.JAVA8_FIXTURES);
        RewriterShapesTest.sources("java8").forEach(p -> args.add(p.toString()));
        if (!level.equals("1.8")) {
            RewriterShapesTest.sources("java17").forEach(p -> args.add(p.toString()));
            fixtures.add("RecordShape");
        }
        StringWriter diagnostics = new StringWriter();
        boolean compiled = BatchCompiler.compile(args.toArray(String[]::new), new PrintWriter(diagnostics),
                new PrintWriter(diagnostics), null);
        assertTrue(compiled, "ecj: " + diagnostics);
        int version = level.equals("1.8") ? 52 : 61;
        checkAndRun(out, fixtures, version, "ecj -" + level);
    }

    @Test
    void kotlinCompilerClassesRewriteVerifyAndBehaveTheSame() throws Exception {
        Path out = temp.resolve("kotlinc");
        Path source = Path.of(RewriterShapesTest.class.getResource("/shapes/kotlin/shapes/KotlinMonitors.kt").toURI());
        String stdlib = Path.of(kotlin.Unit.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        ByteArrayOutputStream messages = new ByteArrayOutputStream();
        ExitCode exit = new K2JVMCompiler().exec(new PrintStream(messages, true, StandardCharsets.UTF_8),
                "-no-stdlib", "-no-reflect", "-jvm-target", "1.8", "-classpath", stdlib, "-d", out.toString(),
                source.toString());
        assertEquals(ExitCode.OK, exit, () -> "kotlinc: " + messages.toString(StandardCharsets.UTF_8));
        checkAndRun(out, List.of("KotlinMonitors"), 52, "kotlinc");
    }

    private void checkAndRun(Path out, List<String> fixtures, int version, String compiler) throws Exception {
        Map<String, byte[]> original = RewriterShapesTest.classes(out);
        assertTrue(original.values().stream().allMatch(b -> RewriterShapesTest.major(b) == version), compiler + " version");
        try (URLClassLoader originalLoader = new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader())) {
            Map<String, byte[]> rewritten = RewriterShapesTest.rewriteAll(original, originalLoader);
            for (Map.Entry<String, byte[]> e : rewritten.entrySet()) {
                StringWriter problems = new StringWriter();
                CheckClassAdapter.verify(new ClassReader(e.getValue()), originalLoader, false, new PrintWriter(problems));
                assertEquals("", problems.toString(), e.getKey());
            }
            ClassLoader rewrittenLoader = new RewriterShapesTest.BytesLoader(rewritten);
            for (String fixture : fixtures) {
                String expected = ShapesMain.run(originalLoader, fixture);
                String actual = ShapesMain.run(rewrittenLoader, fixture);
                System.out.println(compiler + " " + fixture + ": " + actual);
                assertFalse(expected.startsWith("FAILED"), expected);
                assertEquals(expected, actual, fixture + " (" + compiler + ")");
            }
        }
    }
}
