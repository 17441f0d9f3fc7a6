package org.dthreads.monitor.internal.rewriter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.dthreads.monitor.internal.rewriter.fixtures.GoldenShapes;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.util.Textifier;
import org.objectweb.asm.util.TraceMethodVisitor;

/**
 * The rewritten code of a lowered synchronized method and of nested blocks, compared with Textifier
 * goldens next to {@code golden/incrementInBlock.txt}. To regenerate after an intended change of the
 * rewriter: {@code ./mvnw -pl monitor-lib test -Dtest=RewriterGoldenTest -Dgolden.write=true}, then
 * review the diff.
 */
class RewriterGoldenTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({"bump, synchronizedMethod.txt", "nestedBump, nestedBlocks.txt", "notifier, methodReference.txt",
            "reflect, methodInvoke.txt"})
    void rewrittenMethodMatchesItsGolden(String method, String golden) throws Exception {
        ClassNode node = new ClassNode();
        new ClassReader(MonitorRewriterTest.rewrite(GoldenShapes.class).bytes()).accept(node, ClassReader.SKIP_FRAMES);
        Textifier textifier = new Textifier();
        node.methods.stream().filter(m -> m.name.equals(method)).findFirst().orElseThrow()
                .accept(new TraceMethodVisitor(textifier));
        StringWriter text = new StringWriter();
        try (PrintWriter out = new PrintWriter(text)) {
            textifier.print(out);
        }
        String actual = text.toString().strip().replaceAll("(?m)^\\s*LINENUMBER.*\\n", "");
        if (Boolean.getBoolean("golden.write")) {
            Files.writeString(Path.of("src/test/resources/golden", golden), actual + "\n", StandardCharsets.UTF_8);
        }
        String expected;
        try (InputStream in = getClass().getResourceAsStream("/golden/" + golden)) {
            expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertEquals(expected.strip(), actual);
    }
}
