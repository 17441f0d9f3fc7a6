package org.dthreads.monitor.internal.rewriter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.JarURLConnection;
import java.net.URL;
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
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.commons.JSRInlinerAdapter;
import org.objectweb.asm.tree.AnnotationNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.util.Textifier;
import org.objectweb.asm.util.TraceMethodVisitor;

/**
 * The pre-filter against the full rewriter, on every class of the corpus jars and of the rewriter's own
 * fixtures: wherever {@link MonitorTransformer#markerOnly} answers (the class gets only the marker, without
 * ASM), the full {@link MonitorRewriter} must have found nothing to rewrite (no site, no unrewritable
 * route), and the two outputs must run the same code: every method's instructions identical (frames,
 * subroutine inlining and label numbers aside), the same class annotations, and the marked class must verify. The
 * {@link ClassScan} facts the RMI and IIOP patches use must equal ASM's.
 */
@Timeout(180)
class ClassScanCorpusTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "h2, org/h2/Driver.class",
        "hsqldb, org/hsqldb/jdbcDriver.class",
        "xalan, org/apache/xalan/Version.class",
        "rhino, org/mozilla/javascript/Context.class",
        "log4j, org/apache/log4j/Logger.class",
        "bsh, bsh/Interpreter.class",
    })
    void markerOnlyWhereTheRewriterChangesNothingElse(String name, String anchor) throws Exception {
        ClassLoader loader = getClass().getClassLoader();
        Map<String, byte[]> classes = new LinkedHashMap<>();
        try (JarFile jf = new JarFile(jarOf(loader.getResource(anchor)))) {
            for (JarEntry entry : Collections.list(jf.entries())) {
                if (entry.getName().endsWith(".class") && !entry.getName().startsWith("META-INF/")) {
                    try (InputStream in = jf.getInputStream(entry)) {
                        classes.put(entry.getName(), in.readAllBytes());
                    }
                }
            }
        }
        check(name, classes, loader);
    }

    @Test
    void rewriterFixtures() throws Exception {
        ClassLoader loader = getClass().getClassLoader();
        Path dir = Path.of(loader.getResource("org/dthreads/monitor/internal/rewriter/fixtures").toURI());
        Map<String, byte[]> classes = new LinkedHashMap<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
                classes.put(dir.relativize(f).toString(), Files.readAllBytes(f));
            }
        }
        int full = check("fixtures", classes, loader);
        assertTrue(full >= 8, "the fixtures exercise the rewriter: " + full);
    }

    /**
     * Strings another transformer watches ({@link ClassScan#watch}) are answered from the scan's one pass: the same
     * answers as a walk of the constant pool, for every class of two corpus jars and on the marked view; a scan made
     * before a string was watched still answers it (by walking).
     */
    @Test
    void watchedConstantsAreAnsweredAsTheConstantPoolHoldsThem() throws Exception {
        ClassLoader loader = getClass().getClassLoader();
        byte[] early = bytesOf(OnlySynchronizedMethod.class);
        ClassScan before = ClassScan.of(early);
        List<byte[]> watched = new ArrayList<>();
        for (String s : new String[] {"java/lang/Object", "<init>", "Code", "serialVersionUID", "run", "()V",
            "(Ljava/lang/String;Lorg/omg/CORBA/portable/InputStream;Lorg/omg/CORBA/portable/ResponseHandler;)"
                    + "Lorg/omg/CORBA/portable/OutputStream;", "wait"}) {
            byte[] utf8 = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            ClassScan.watch(utf8);
            watched.add(utf8);
        }
        assertTrue(before.hasConstant("java/lang/Object".getBytes()), "a scan made before watch() walks");
        List<String> wrong = new ArrayList<>();
        int present = 0;
        int absent = 0;
        for (String anchor : new String[] {"org/h2/Driver.class", "org/mozilla/javascript/Context.class"}) {
            try (JarFile jf = new JarFile(jarOf(loader.getResource(anchor)))) {
                for (JarEntry entry : Collections.list(jf.entries())) {
                    if (!entry.getName().endsWith(".class") || entry.getName().startsWith("META-INF/")) {
                        continue;
                    }
                    byte[] bytes;
                    try (InputStream in = jf.getInputStream(entry)) {
                        bytes = in.readAllBytes();
                    }
                    ClassScan scan = ClassScan.of(bytes);
                    byte[] marked = MonitorTransformer.markerOnly(bytes);
                    ClassScan view = marked == null ? scan : ClassScan.of(marked);
                    for (byte[] w : watched) {
                        boolean expected = constantPoolHolds(bytes, w);
                        if (scan.hasConstant(w) != expected || view.hasConstant(w) != expected) {
                            wrong.add(entry.getName() + ": " + new String(w) + " expected " + expected);
                        }
                        if (expected) {
                            present++;
                        } else {
                            absent++;
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), wrong.subList(0, Math.min(20, wrong.size())), wrong.size() + " wrong answers");
        assertTrue(present > 1000 && absent > 1000, present + " present, " + absent + " absent");
    }

    /** Whether a Utf8 constant of the class equals {@code utf8}: the constant pool read with ASM's offsets. */
    private static boolean constantPoolHolds(byte[] bytes, byte[] utf8) {
        ClassReader reader = new ClassReader(bytes);
        for (int i = 1; i < reader.getItemCount(); i++) {
            int offset = reader.getItem(i);
            if (offset > 0 && bytes[offset - 1] == 1 && reader.readUnsignedShort(offset) == utf8.length
                    && java.util.Arrays.equals(bytes, offset + 2, offset + 2 + utf8.length, utf8, 0, utf8.length)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aSynchronizedMethodWithoutMonitorInstructionsNeedsTheRewriter() throws Exception {
        byte[] bytes = bytesOf(OnlySynchronizedMethod.class);
        assertTrue(ClassScan.of(bytes).needsRewriter());
        assertNull(MonitorTransformer.markerOnly(bytes));
        assertEquals(1, MonitorRewriter.rewrite(bytes, getClass().getClassLoader()).synchronizedMethods());
    }

    /** Each reaches something the rewriter changes without any synchronized code of its own. */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(classes = {NotifiesForItsCaller.class, WaitsForItsCaller.class,
        InterruptsAThread.class, AsksHoldsLock.class, InvokesReflectively.class, LooksUpAHandle.class,
        ReferencesNotify.class, ReaderWithALock.class, AsksAClassLoadingLock.class})
    void aRouteToAMonitorOperationWithoutSynchronizedCodeNeedsTheRewriter(Class<?> c) throws Exception {
        byte[] bytes = bytesOf(c);
        assertTrue(ClassScan.of(bytes).needsRewriter());
        assertNull(MonitorTransformer.markerOnly(bytes));
        MonitorRewriter.Result r = MonitorRewriter.rewrite(bytes, getClass().getClassLoader());
        assertTrue(r.rewritten(), r.skipReason());
        assertTrue(!code(r.bytes()).equals(code(bytes)), "the rewriter changes " + c.getSimpleName());
    }

    static final class NotifiesForItsCaller {
        void wake(Object o) {
            o.notifyAll();
        }
    }

    static final class WaitsForItsCaller {
        void await(Object o) throws InterruptedException {
            o.wait(10);
        }
    }

    static final class InterruptsAThread {
        void stop(Thread t) {
            t.interrupt();
        }
    }

    static final class AsksHoldsLock {
        boolean held(Object o) {
            return Thread.holdsLock(o);
        }
    }

    static final class InvokesReflectively {
        Object call(java.lang.reflect.Method m, Object o) throws ReflectiveOperationException {
            return m.invoke(o);
        }
    }

    static final class LooksUpAHandle {
        Object find() throws ReflectiveOperationException {
            return java.lang.invoke.MethodHandles.lookup().findVirtual(Object.class, "hashCode",
                    java.lang.invoke.MethodType.methodType(int.class));
        }
    }

    static final class ReferencesNotify {
        Runnable wakeOne(Object o) {
            return o::notify;
        }
    }

    static final class ReaderWithALock extends java.io.Reader {
        ReaderWithALock(Object lock) {
            super(lock);
        }

        @Override
        public int read(char[] b, int off, int len) {
            return -1;
        }

        @Override
        public void close() {}
    }

    static final class AsksAClassLoadingLock extends ClassLoader {
        Object lockFor(String name) {
            return getClassLoadingLock(name);
        }
    }

    static final class OnlySynchronizedMethod {
        private int value;

        synchronized int next() {
            return ++value;
        }
    }

    @Test
    void aPlainClassGetsTheMarkerOnceAndKeepsItsOwnAnnotations() throws Exception {
        byte[] bytes = bytesOf(Plain.class);
        byte[] marked = MonitorTransformer.markerOnly(bytes);
        assertNotNull(marked);
        assertEquals(List.of("Ljava/lang/Deprecated;", MonitorRewriter.REWRITTEN_DESCRIPTOR), annotations(marked));
        assertEquals("already rewritten", MonitorRewriter.rewrite(marked, getClass().getClassLoader()).skipReason());
        assertNull(MonitorTransformer.markerOnly(marked), "a marked class is the rewriter's to recognise");
        assertEquals("", BytesVerifier.of(getClass().getClassLoader()).verify(marked));
    }

    @Deprecated
    static final class Plain {
        int value(int x) {
            return switch (x) {
                case 1 -> 10;
                case 1000 -> 20;
                default -> x * 3;
            };
        }
    }

    /** @return how many classes needed the full rewriter */
    private static int check(String name, Map<String, byte[]> classes, ClassLoader loader) {
        BytesVerifier verifier = BytesVerifier.of(loader);
        List<String> wrong = new ArrayList<>();
        int markerOnly = 0;
        int full = 0;
        int fullButNothingToRewrite = 0;
        for (Map.Entry<String, byte[]> e : classes.entrySet()) {
            byte[] bytes = e.getValue();
            MonitorRewriter.Result rewriter = MonitorRewriter.rewrite(bytes, loader);
            byte[] marked = MonitorTransformer.markerOnly(bytes);
            checkFacts(e.getKey(), bytes, wrong);
            if (marked == null) {
                full++;
                if (rewriter.rewritten() && rewriter.sites() == 0 && rewriter.unrewritableSites().isEmpty()) {
                    fullButNothingToRewrite++;
                }
                continue;
            }
            markerOnly++;
            if (!rewriter.rewritten()) {
                // the rewriter could not compute frames (an absent optional dependency): nothing to compute here
                if (!rewriter.skipReason().startsWith("cannot read the class file of")) {
                    wrong.add(e.getKey() + ": marker only, but the rewriter skips it: " + rewriter.skipReason());
                }
            } else if (rewriter.sites() != 0 || !rewriter.unrewritableSites().isEmpty()) {
                wrong.add(e.getKey() + ": marker only, but the rewriter rewrites " + rewriter.sites() + " sites "
                        + rewriter.unrewritableSites());
            } else if (!code(rewriter.bytes()).equals(code(marked))) {
                wrong.add(e.getKey() + ": marker only, but the rewriter's code differs");
            } else if (!annotations(rewriter.bytes()).equals(annotations(marked))) {
                wrong.add(e.getKey() + ": annotations " + annotations(marked) + " vs " + annotations(rewriter.bytes()));
            } else {
                String problems = verifier.verify(marked);
                if (!problems.isEmpty() && verifier.verify(bytes).isEmpty()) {
                    wrong.add(e.getKey() + ": the marked class does not verify: " + problems);
                }
            }
        }
        System.out.printf(Locale.ROOT, "prefilter %s: classes=%d markerOnly=%d full=%d (of which the rewriter changed"
                + " nothing but the marker: %d)%n", name, classes.size(), markerOnly, full, fullButNothingToRewrite);
        assertEquals(List.of(), wrong);
        assertTrue(markerOnly > 0 || classes.size() < 20, "the filter lets classes through");
        return full;
    }

    /** What the RMI and IIOP patches read from a scan, against ASM. */
    private static void checkFacts(String entry, byte[] bytes, List<String> wrong) {
        ClassReader reader = new ClassReader(bytes);
        ClassScan scan = ClassScan.of(bytes);
        if (scan.access() != reader.getAccess() || !java.util.Objects.equals(scan.superName(), reader.getSuperName())
                || !java.util.Arrays.equals(scan.interfaces(), reader.getInterfaces())) {
            wrong.add(entry + ": scan facts differ from ASM's");
        }
        byte[] name = reader.getClassName().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (!scan.hasConstant(name) || scan.hasConstant("no such constant, surely".getBytes())) {
            wrong.add(entry + ": hasConstant");
        }
        assertArrayEquals(bytes, scan.bytes);
        byte[] marked = MonitorTransformer.markerOnly(bytes);
        if (marked != null) { // the view the RMI and IIOP patches get of the marked class
            ClassScan view = ClassScan.of(marked);
            ClassReader markedReader = new ClassReader(marked);
            if (view == scan || !view.needsRewriter() || view.access() != markedReader.getAccess()
                    || !java.util.Objects.equals(view.superName(), markedReader.getSuperName())
                    || !java.util.Arrays.equals(view.interfaces(), markedReader.getInterfaces()) || !view.hasConstant(name)) {
                wrong.add(entry + ": the marked view's facts differ from ASM's");
            }
        }
    }

    /** Every method's instructions as ASM prints them, without frames and maxima, subroutines inlined. */
    static String code(byte[] bytes) {
        ClassNode node = new ClassNode();
        new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9, node) {
            @Override
            public MethodVisitor visitMethod(int access, String n, String d, String s, String[] x) {
                return new JSRInlinerAdapter(super.visitMethod(access, n, d, s, x), access, n, d, s, x);
            }
        }, ClassReader.SKIP_FRAMES);
        StringBuilder out = new StringBuilder();
        for (MethodNode m : node.methods) {
            Textifier text = new Textifier();
            m.accept(new TraceMethodVisitor(text));
            StringWriter w = new StringWriter();
            text.print(new PrintWriter(w));
            out.append(m.access & ~Opcodes.ACC_SYNCHRONIZED).append(' ').append(m.name).append(m.desc).append('\n');
            // labels are renumbered by subroutine inlining (old class files): compare the instructions only
            w.toString().lines().filter(l -> !l.contains("FRAME") && !l.contains("MAXSTACK") && !l.contains("MAXLOCALS")
                    && !l.matches("\\s*L\\d+")).forEach(l -> out.append(l.replaceAll("\\bL\\d+\\b", "L")).append('\n'));
        }
        return out.toString();
    }

    static List<String> annotations(byte[] bytes) {
        ClassNode node = new ClassNode();
        new ClassReader(bytes).accept(node, ClassReader.SKIP_CODE);
        List<String> out = new ArrayList<>();
        if (node.visibleAnnotations != null) {
            for (AnnotationNode a : node.visibleAnnotations) {
                out.add(a.desc);
            }
        }
        return out;
    }

    private static byte[] bytesOf(Class<?> c) throws IOException {
        try (InputStream in = c.getClassLoader().getResourceAsStream(c.getName().replace('.', '/') + ".class")) {
            return in.readAllBytes();
        }
    }

    static File jarOf(URL resource) throws IOException {
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
