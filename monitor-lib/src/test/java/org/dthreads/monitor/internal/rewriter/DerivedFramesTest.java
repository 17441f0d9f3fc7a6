package org.dthreads.monitor.internal.rewriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.util.CheckClassAdapter;

/**
 * The rewritten methods' frames derived from the compiler's ({@link FrameHints}) against the path that computes
 * them (ASM's {@code COMPUTE_FRAMES}), on every class of the corpus jars and the fixtures that needs the rewriter:
 * the same outcome, sites and instructions, the output passes {@link CheckClassAdapter}'s structural checks and the
 * data-flow verifier ({@link BytesVerifier}), and the classes of a jar, defined together, are linked by the JVM,
 * whose type-checking verifier checks every frame against the code. Where frames cannot be derived, the method's are
 * computed: none on the corpus (class files of version 51 on: H2, Rhino, the fixtures; the others are older and
 * keep computed frames for the whole class), and the case below where a state holds an uninitialized object.
 * One difference by design: a class whose rewritten method merges types of an absent optional dependency (H2's
 * {@code FullTextLucene}) was skipped (no common super-class to compute its frames) and is now rewritten; its
 * output must still verify like the others.
 */
@Timeout(240)
class DerivedFramesTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "h2, org/h2/Driver.class, true",
        "rhino, org/mozilla/javascript/Context.class, true",
        "hsqldb, org/hsqldb/jdbcDriver.class, false",
        "xalan, org/apache/xalan/Version.class, false",
        "log4j, org/apache/log4j/Logger.class, false",
        "bsh, bsh/Interpreter.class, false",
    })
    void derivedFramesAreAcceptedOnTheCorpus(String name, String anchor, boolean modernClassFiles) throws Exception {
        ClassLoader loader = getClass().getClassLoader();
        Map<String, byte[]> classes = new LinkedHashMap<>();
        try (JarFile jf = new JarFile(ClassScanCorpusTest.jarOf(loader.getResource(anchor)))) {
            for (JarEntry entry : Collections.list(jf.entries())) {
                if (entry.getName().endsWith(".class") && !entry.getName().startsWith("META-INF/")) {
                    try (InputStream in = jf.getInputStream(entry)) {
                        classes.put(entry.getName(), in.readAllBytes());
                    }
                }
            }
        }
        MonitorRewriter.FrameStats stats = check(name, classes, loader);
        assertEquals(List.of(), stats.computed, "methods whose frames could not be derived");
        if (modernClassFiles) {
            assertTrue(stats.derived > 10, "frames derived: " + stats.derived);
        }
    }

    @Test
    void fixtures() throws Exception {
        ClassLoader loader = getClass().getClassLoader();
        Path dir = Path.of(loader.getResource("org/dthreads/monitor/internal/rewriter/fixtures").toURI());
        Map<String, byte[]> classes = new LinkedHashMap<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
                classes.put("org/dthreads/monitor/internal/rewriter/fixtures/" + dir.relativize(f).toString().replace('\\', '/'),
                        Files.readAllBytes(f));
            }
        }
        MonitorRewriter.FrameStats stats = check("fixtures", classes, loader);
        assertEquals(List.of(), stats.computed, "methods whose frames could not be derived");
        assertTrue(stats.derived > 50, "frames derived: " + stats.derived);
    }

    /**
     * {@code new Holder(m.invoke(target))}: at the reflective guard's branch the stack holds the uninitialized
     * {@code Holder} (twice), which the derivation does not map back to its label; the method's frames are computed
     * instead, and the class loads and runs.
     */
    @Test
    void anUninitializedObjectInTheStateFallsBackToComputedFrames() throws Exception {
        byte[] bytes = bytesOf(UninitializedAcrossGuard.class);
        ClassLoader loader = getClass().getClassLoader();
        MonitorRewriter.FrameStats stats = new MonitorRewriter.FrameStats();
        MonitorRewriter.Result result = MonitorRewriter.rewrite(bytes, loader, MethodSelection.of(bytes), true, stats);
        assertTrue(result.rewritten(), result.skipReason());
        assertEquals(1, stats.computed.size(), stats.computed.toString());
        assertTrue(stats.computed.get(0).contains("wrap(Ljava/lang/reflect/Method;Ljava/lang/Object;)"), stats.computed.toString());
        assertTrue(stats.computed.get(0).endsWith("no state for a frame the rewriting needs"), stats.computed.toString());
        assertEquals(1, stats.derived, "the synchronized method's frames are derived");
        assertEquals("", BytesVerifier.of(loader).verify(result.bytes()));
        String name = UninitializedAcrossGuard.class.getName();
        Class<?> c = new ClassLoader(loader) {
            @Override
            protected Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
                if (!n.equals(name)) {
                    return super.loadClass(n, resolve);
                }
                Class<?> loaded = findLoadedClass(n);
                return loaded != null ? loaded : defineClass(n, result.bytes(), 0, result.bytes().length);
            }
        }.loadClass(name);
        Object instance = c.getDeclaredConstructor().newInstance(); // linked: the JVM checked both methods' frames
        Method wrap = c.getDeclaredMethod("wrap", Method.class, Object.class);
        Object holder = wrap.invoke(instance, Object.class.getMethod("toString"), "text");
        assertEquals("text", holder.toString());
        assertEquals(1, c.getDeclaredMethod("next").invoke(instance));
    }

    /** The check behind the fallback: a branch target without a frame is found, one with its frame is not. */
    @Test
    void aBranchTargetWithoutItsFrameIsFound() {
        MethodNode method = new MethodNode(Opcodes.ACC_STATIC, "m", "(I)V", null, null);
        LabelNode target = new LabelNode();
        method.instructions.add(new org.objectweb.asm.tree.VarInsnNode(Opcodes.ILOAD, 0));
        method.instructions.add(new JumpInsnNode(Opcodes.IFEQ, target));
        method.instructions.add(new InsnNode(Opcodes.NOP));
        method.instructions.add(target);
        method.instructions.add(new InsnNode(Opcodes.RETURN));
        assertNotNull(FrameHints.checkFrames(method, null));
        method.instructions.insert(target, new org.objectweb.asm.tree.FrameNode(Opcodes.F_NEW, 1, new Object[] {Opcodes.INTEGER},
                0, new Object[0]));
        assertNull(FrameHints.checkFrames(method, null));
    }

    private static MonitorRewriter.FrameStats check(String name, Map<String, byte[]> classes, ClassLoader loader) {
        BytesVerifier verifier = BytesVerifier.of(loader);
        MonitorRewriter.FrameStats stats = new MonitorRewriter.FrameStats();
        List<String> wrong = new ArrayList<>();
        Map<String, byte[]> everyClass = new LinkedHashMap<>();
        classes.forEach((entry, bytes) -> everyClass.put(binaryName(entry), bytes));
        int rewritten = 0;
        List<String> absentTypes = new ArrayList<>();
        for (Map.Entry<String, byte[]> e : classes.entrySet()) {
            byte[] bytes = e.getValue();
            if (!ClassScan.of(bytes).needsRewriter()) {
                continue;
            }
            String entry = e.getKey();
            MonitorRewriter.Result computed = MonitorRewriter.rewrite(bytes, loader, MethodSelection.of(bytes), false, null);
            MonitorRewriter.Result derived = MonitorRewriter.rewrite(bytes, loader, MethodSelection.of(bytes), true, stats);
            boolean nowRewritten = !computed.rewritten() && derived.rewritten()
                    && computed.skipReason().startsWith("cannot read the class file of");
            if (computed.rewritten() != derived.rewritten() && !nowRewritten) {
                wrong.add(entry + ": computed " + computed.skipReason() + ", derived " + derived.skipReason());
                continue;
            }
            if (!derived.rewritten()) {
                continue;
            }
            rewritten++;
            if (nowRewritten) {
                absentTypes.add(entry); // by design: no common super-class of an absent type is needed any more
            } else if (computed.sites() != derived.sites() || !computed.unrewritableSites().equals(derived.unrewritableSites())) {
                wrong.add(entry + ": sites differ " + computed + " vs " + derived);
            } else if (!ClassScanCorpusTest.code(computed.bytes()).equals(ClassScanCorpusTest.code(derived.bytes()))) {
                wrong.add(entry + ": the instructions differ");
            }
            try {
                new ClassReader(derived.bytes()).accept(new CheckClassAdapter(new ClassNode(), false), 0);
            } catch (RuntimeException ex) {
                wrong.add(entry + ": CheckClassAdapter: " + ex);
            }
            String problems = verifier.verify(derived.bytes());
            if (!problems.isEmpty() && verifier.verify(bytes).isEmpty()) {
                wrong.add(entry + ": does not verify: " + problems);
            }
            everyClass.put(binaryName(entry), derived.bytes());
        }
        int[] linked = new int[1];
        wrong.addAll(MethodSelectionCorpusTest.jvmVerifies(everyClass, loader, linked));
        System.out.printf(Locale.ROOT, "frames %s: rewritten=%d (computed frames skip them: %s) methods: derived=%d"
                + " computed=%d (older class files: %d); classes linked by the JVM: %d of %d%n", name, rewritten, absentTypes,
                stats.derived, stats.computed.size(), stats.olderClassFile, linked[0], everyClass.size());
        assertTrue(linked[0] >= everyClass.size() / 2, "the JVM verifies most classes");
        assertEquals(List.of(), wrong);
        return stats;
    }

    private static String binaryName(String entry) {
        return entry.substring(0, entry.length() - ".class".length()).replace('/', '.');
    }

    private static byte[] bytesOf(Class<?> c) throws java.io.IOException {
        try (InputStream in = c.getClassLoader().getResourceAsStream(c.getName().replace('.', '/') + ".class")) {
            return in.readAllBytes();
        }
    }

    /** See {@link #anUninitializedObjectInTheStateFallsBackToComputedFrames()}. */
    public static final class UninitializedAcrossGuard {
        private int count;

        public Object wrap(Method m, Object target) throws ReflectiveOperationException {
            return new Holder(m.invoke(target));
        }

        public synchronized int next() {
            return ++count;
        }
    }

    /** Holds one value. */
    public static final class Holder {
        private final Object value;

        public Holder(Object value) {
            this.value = value;
        }

        @Override
        public String toString() {
            return String.valueOf(value);
        }
    }
}
