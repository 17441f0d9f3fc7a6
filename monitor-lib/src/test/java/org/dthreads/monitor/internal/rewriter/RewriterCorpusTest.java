package org.dthreads.monitor.internal.rewriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Rewrites every class of real jars heavy in {@code synchronized} (test-scoped dependencies of this
 * module) and verifies every rewritten class. Asserts no verification failure and no skip outside
 * the documented ones (docs/rewriter.md, "Corpus"): a type of an optional dependency that is not on
 * the class path (the rewriter will not guess a common super-class), a static synchronized method in
 * a class file older than Java 5, and a {@code finally} compiled to {@code jsr}/{@code ret} inside a
 * synchronized block (pre-Java-6 javac: after inlining, the subroutine copies lie outside the block).
 * Prints one line per jar with the numbers recorded in the doc. About 2 s for all six jars.
 */
@Timeout(120)
class RewriterCorpusTest {

    /** Packages of optional dependencies the corpus jars reference and this module does not have. */
    private static final Pattern ABSENT_OPTIONAL_DEPENDENCY = Pattern.compile(
            "cannot read the class file of (javax\\.jms|javax\\.mail|javax\\.servlet|org\\.apache\\.lucene"
                    + "|org\\.locationtech\\.jts|org\\.apache\\.bsf)\\..*");
    /** The same, as BytesVerifier reports a type it has no class file for (BSF: bsh's optional engine). */
    private static final Pattern ABSENT_TYPE_PROBLEM = Pattern.compile(
            "no class file for (javax/jms|javax/mail|javax/servlet|org/apache/lucene|org/locationtech/jts|org/apache/bsf)/");
    private static final String OLD_STATIC_SYNCHRONIZED = "static synchronized method in a class file older than Java 5";
    private static final String JUMP_INTO_BLOCK = "a jump into a synchronized block";

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "h2, org/h2/Driver.class",
        "hsqldb, org/hsqldb/jdbcDriver.class",
        "xalan, org/apache/xalan/Version.class",
        "rhino, org/mozilla/javascript/Context.class",
        "log4j, org/apache/log4j/Logger.class",
        "bsh, bsh/Interpreter.class",
    })
    void everyClassIsRewrittenAndVerifiesOrIsSkippedForADocumentedReason(String name, String marker) throws Exception {
        ClassLoader loader = getClass().getClassLoader(); // sees the jar, its dependencies and the JDK
        File jar = jarOf(loader.getResource(marker));
        BytesVerifier verifier = BytesVerifier.of(loader);
        long start = System.nanoTime();
        int classes = 0;
        int rewritten = 0;
        int methods = 0;
        int blocks = 0;
        int calls = 0;
        int verified = 0;
        int unverifiable = 0;
        Map<String, Integer> skips = new TreeMap<>();
        List<String> unexpected = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        List<String> unrewritable = new ArrayList<>();
        try (JarFile jf = new JarFile(jar)) {
            for (JarEntry entry : Collections.list(jf.entries())) {
                if (!entry.getName().endsWith(".class") || entry.getName().startsWith("META-INF/")) {
                    continue;
                }
                byte[] bytes;
                try (InputStream in = jf.getInputStream(entry)) {
                    bytes = in.readAllBytes();
                }
                classes++;
                MonitorRewriter.Result result = MonitorRewriter.rewrite(bytes, loader);
                if (result.rewritten()) {
                    rewritten++;
                    methods += result.synchronizedMethods();
                    blocks += result.synchronizedBlocks();
                    calls += result.monitorCalls();
                    result.unrewritableSites().forEach(site -> unrewritable.add(entry.getName() + " " + site));
                    String problems = verifier.verify(result.bytes());
                    if (problems.isEmpty()) {
                        verified++;
                    } else if (onlyAbsentTypes(problems) && !verifier.verify(bytes).isEmpty()) {
                        unverifiable++; // the original cannot be analysed here either
                    } else {
                        failures.add(entry.getName() + ":\n" + problems);
                    }
                    continue;
                }
                String category = category(result.skipReason(), bytes);
                if (category == null) {
                    unexpected.add(entry.getName() + ": " + result.skipReason());
                } else {
                    skips.merge(category, 1, Integer::sum);
                }
            }
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.printf(Locale.ROOT, "corpus %s (%s): classes=%d rewritten=%d sites: methods=%d blocks=%d calls=%d"
                + " verified=%d unverifiable=%d skips=%s unexpected=%d failures=%d unrewritable routes=%s time=%dms%n", name,
                jar.getName(), classes, rewritten, methods, blocks, calls, verified, unverifiable, skips, unexpected.size(),
                failures.size(), unrewritable, millis);
        assertEquals(List.of(), failures, "rewritten classes that fail verification");
        assertEquals(List.of(), unexpected, "skips outside the documented reasons");
        assertEquals(List.of(), unrewritable, "monitor routes left as they are (none expected in these jars)");
        assertTrue(rewritten > 0 && methods + blocks > 0, "the jar has synchronized code");
    }

    /** Whether every problem is a type of an absent optional dependency. */
    private static boolean onlyAbsentTypes(String problems) {
        return problems.lines().allMatch(line -> ABSENT_TYPE_PROBLEM.matcher(line).find());
    }

    /** The documented category of a skip, or null if the skip is unexpected. */
    private static String category(String reason, byte[] bytes) {
        if (ABSENT_OPTIONAL_DEPENDENCY.matcher(reason).matches()) {
            return "optional dependency absent";
        }
        int major = ((bytes[6] & 0xFF) << 8) | (bytes[7] & 0xFF);
        if (reason.startsWith(OLD_STATIC_SYNCHRONIZED) && major < 49) {
            return "static synchronized, class file < Java 5";
        }
        if (reason.startsWith(JUMP_INTO_BLOCK) && major < 50 && usesJsr(bytes)) {
            return "jsr/ret finally inside synchronized";
        }
        return null;
    }

    private static boolean usesJsr(byte[] bytes) {
        boolean[] found = new boolean[1];
        new org.objectweb.asm.ClassReader(bytes).accept(new org.objectweb.asm.ClassVisitor(org.objectweb.asm.Opcodes.ASM9) {
            @Override
            public org.objectweb.asm.MethodVisitor visitMethod(int access, String n, String d, String s, String[] e) {
                return new org.objectweb.asm.MethodVisitor(org.objectweb.asm.Opcodes.ASM9) {
                    @Override
                    public void visitJumpInsn(int opcode, org.objectweb.asm.Label label) {
                        found[0] |= opcode == org.objectweb.asm.Opcodes.JSR;
                    }
                };
            }
        }, 0);
        return found[0];
    }

    private static File jarOf(URL resource) throws IOException {
        assertTrue(resource != null && resource.getProtocol().equals("jar"), "the corpus jar is on the test class path");
        JarURLConnection connection = (JarURLConnection) resource.openConnection();
        connection.setUseCaches(false);
        try {
            return new File(connection.getJarFileURL().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IOException(e);
        }
    }
}
