package org.dthreads.monitor.internal.rewriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
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
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.util.CheckClassAdapter;
import org.objectweb.asm.util.Textifier;
import org.objectweb.asm.util.TraceMethodVisitor;

/**
 * The rewriter with its {@link MethodSelection} (methods with nothing to rewrite copied as they are) against the
 * rewriter sending every method through its tree passes with frames computed by ASM (the path before both, see
 * {@link DerivedFramesTest} for the frames), on every class of the corpus jars and the fixtures
 * that needs the rewriter: the same outcome (rewritten or skipped, the same sites and unrewritable routes), every
 * method's instructions identical (frames and max sizes aside: a copied method keeps its compiler's), the same
 * class annotations; each method the selection leaves alone is in the output exactly as it came, frames and
 * max sizes included, unless ASM cannot copy it (a class file with duplicate constants, e.g. two {@code Class}
 * entries for one exception type: ASM then re-encodes it as before, which the instruction check covers); the
 * output verifies, and the classes of a jar, defined together, pass the JVM's verifier.
 * One difference by design: a class the full path skipped only because it could not read a super-type to
 * compute the frames of a method with nothing to rewrite (an absent optional dependency) is now rewritten.
 */
@Timeout(240)
class MethodSelectionCorpusTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "h2, org/h2/Driver.class",
        "hsqldb, org/hsqldb/jdbcDriver.class",
        "xalan, org/apache/xalan/Version.class",
        "rhino, org/mozilla/javascript/Context.class",
        "log4j, org/apache/log4j/Logger.class",
        "bsh, bsh/Interpreter.class",
    })
    void selectiveRewritingEqualsTheFullOne(String name, String anchor) throws Exception {
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
        assertTrue(check(name, classes, loader) > 0, "the selection copies methods");
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
        check("fixtures", classes, loader);
    }

    /**
     * A method with nothing to rewrite whose frames would need a type the rewriter cannot read (an absent
     * optional dependency): copied, so the class is rewritten; the full path needed the common super-class of the
     * two absent types to recompute its frames and skipped the whole class, leaving its monitors native.
     */
    @Test
    void aMethodWithNothingToRewriteNeedsNoFrameComputation() throws Exception {
        byte[] bytes = synchronizedMethodAndAMergeOfAbsentTypes();
        ClassLoader loader = getClass().getClassLoader();
        MonitorRewriter.Result full = MonitorRewriter.rewrite(bytes, loader, MethodSelection.all(), false, null);
        assertFalse(full.rewritten());
        assertTrue(full.skipReason().startsWith("cannot read the class file of absent."), full.skipReason());
        MonitorRewriter.Result selective = MonitorRewriter.rewrite(bytes, loader);
        assertTrue(selective.rewritten(), selective.skipReason());
        assertEquals(1, selective.synchronizedMethods());
        assertEquals(methods(bytes).get("pick(Z)Ljava/lang/Object;"), methods(selective.bytes()).get("pick(Z)Ljava/lang/Object;"));
        new ClassReader(selective.bytes()).accept(new CheckClassAdapter(new ClassNode(), false), 0);
        Class<?> c = new ClassLoader(loader) {
            Class<?> define() {
                return defineClass("Merges", selective.bytes(), 0, selective.bytes().length);
            }
        }.define();
        Object merges = c.getConstructor().newInstance(); // linked and verified: the JVM checks the copied frames
        assertEquals(1, c.getMethod("next").invoke(merges));
        assertEquals(null, c.getMethod("pick", boolean.class).invoke(merges, true));
    }

    /**
     * {@code class Merges { int count; synchronized int next() { return ++count; }
     * Object pick(boolean b) { return b ? (absent.Left) null : (absent.Right) null; } }}, with the frames a
     * compiler writes (the join typed {@code Object}); {@code absent.*} exist nowhere.
     */
    private static byte[] synchronizedMethodAndAMergeOfAbsentTypes() {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, "Merges", null, "java/lang/Object", null);
        cw.visitField(0, "count", "I", null, null).visitEnd();
        MethodVisitor init = cw.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        init.visitInsn(Opcodes.RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
        MethodVisitor next = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_SYNCHRONIZED, "next", "()I", null, null);
        next.visitCode();
        next.visitVarInsn(Opcodes.ALOAD, 0);
        next.visitInsn(Opcodes.DUP);
        next.visitFieldInsn(Opcodes.GETFIELD, "Merges", "count", "I");
        next.visitInsn(Opcodes.ICONST_1);
        next.visitInsn(Opcodes.IADD);
        next.visitFieldInsn(Opcodes.PUTFIELD, "Merges", "count", "I");
        next.visitVarInsn(Opcodes.ALOAD, 0);
        next.visitFieldInsn(Opcodes.GETFIELD, "Merges", "count", "I");
        next.visitInsn(Opcodes.IRETURN);
        next.visitMaxs(0, 0);
        next.visitEnd();
        MethodVisitor pick = cw.visitMethod(Opcodes.ACC_PUBLIC, "pick", "(Z)Ljava/lang/Object;", null, null);
        pick.visitCode();
        Label right = new Label();
        Label join = new Label();
        pick.visitVarInsn(Opcodes.ILOAD, 1);
        pick.visitJumpInsn(Opcodes.IFEQ, right);
        pick.visitInsn(Opcodes.ACONST_NULL);
        pick.visitTypeInsn(Opcodes.CHECKCAST, "absent/Left");
        pick.visitJumpInsn(Opcodes.GOTO, join);
        pick.visitLabel(right);
        pick.visitFrame(Opcodes.F_SAME, 0, null, 0, null);
        pick.visitInsn(Opcodes.ACONST_NULL);
        pick.visitTypeInsn(Opcodes.CHECKCAST, "absent/Right");
        pick.visitLabel(join);
        pick.visitFrame(Opcodes.F_SAME1, 0, null, 1, new Object[] {"java/lang/Object"});
        pick.visitInsn(Opcodes.ARETURN);
        pick.visitMaxs(0, 0);
        pick.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** @return how many methods were copied */
    private static int check(String name, Map<String, byte[]> classes, ClassLoader loader) {
        BytesVerifier verifier = BytesVerifier.of(loader);
        List<String> wrong = new ArrayList<>();
        int rewritten = 0;
        int methods = 0;
        int copied = 0;
        int reencoded = 0;
        int nowRewritten = 0;
        Map<String, byte[]> everyClass = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> e : classes.entrySet()) {
            String entry = e.getKey();
            everyClass.put(entry.substring(0, entry.length() - ".class".length()).replace('/', '.'), e.getValue());
        }
        for (Map.Entry<String, byte[]> e : classes.entrySet()) {
            byte[] bytes = e.getValue();
            if (!ClassScan.of(bytes).needsRewriter()) {
                continue;
            }
            MethodSelection selection = MethodSelection.of(bytes);
            MonitorRewriter.Result full = MonitorRewriter.rewrite(bytes, loader, MethodSelection.all(), false, null);
            MonitorRewriter.Result selective = MonitorRewriter.rewrite(bytes, loader, selection);
            String entry = e.getKey();
            if (!full.rewritten()) {
                if (selective.rewritten() && full.skipReason().startsWith("cannot read the class file of")) {
                    nowRewritten++; // by design (see the class comment); the output must still verify
                } else if (selective.rewritten() || !full.skipReason().equals(selective.skipReason())) {
                    wrong.add(entry + ": full skips (" + full.skipReason() + "), selective: " + selective.skipReason());
                    continue;
                } else {
                    continue;
                }
            } else if (!selective.rewritten()) {
                wrong.add(entry + ": full rewrites, selective skips: " + selective.skipReason());
                continue;
            } else if (full.synchronizedMethods() != selective.synchronizedMethods()
                    || full.synchronizedBlocks() != selective.synchronizedBlocks()
                    || full.monitorCalls() != selective.monitorCalls()
                    || !full.unrewritableSites().equals(selective.unrewritableSites())) {
                wrong.add(entry + ": sites differ " + full + " vs " + selective);
            } else if (!ClassScanCorpusTest.code(full.bytes()).equals(ClassScanCorpusTest.code(selective.bytes()))) {
                wrong.add(entry + ": the instructions differ");
            } else if (!ClassScanCorpusTest.annotations(full.bytes()).equals(ClassScanCorpusTest.annotations(selective.bytes()))) {
                wrong.add(entry + ": the annotations differ");
            }
            rewritten++;
            Map<String, String> before = methods(bytes);
            Map<String, String> after = methods(selective.bytes());
            int index = 0;
            for (Map.Entry<String, String> m : before.entrySet()) {
                methods++;
                if (!selection.mayChange(index++)) {
                    if (m.getValue().equals(after.get(m.getKey()))) {
                        copied++;
                    } else {
                        reencoded++;
                    }
                }
            }
            String problems = verifier.verify(selective.bytes());
            if (!problems.isEmpty() && verifier.verify(bytes).isEmpty()) {
                wrong.add(entry + ": does not verify: " + problems);
            }
            everyClass.put(entry.substring(0, entry.length() - ".class".length()).replace('/', '.'), selective.bytes());
        }
        int[] linked = new int[1];
        wrong.addAll(jvmVerifies(everyClass, loader, linked));
        System.out.printf(Locale.ROOT, "selection %s: rewritten=%d (full path skipped: %d) methods=%d copied=%d"
                + " (re-encoded by ASM: %d); classes linked by the JVM: %d of %d%n", name, rewritten, nowRewritten, methods,
                copied, reencoded, linked[0], everyClass.size());
        assertTrue(linked[0] >= everyClass.size() / 2, "the JVM verifies most classes");
        assertTrue(copied >= 4 * reencoded, "most methods left alone are copied: " + copied + " vs " + reencoded);
        assertEquals(List.of(), wrong);
        return copied;
    }

    /**
     * Defines the classes of a jar together, rewritten where they were (the others from the test class path), and links each
     * ({@code getDeclaredMethods} links: the JVM's verifier runs, copied frames included). Only verify errors
     * count: a class whose optional dependency is absent fails to link for that reason alone, as it would plain.
     */
    static List<String> jvmVerifies(Map<String, byte[]> outputs, ClassLoader parent, int[] linked) {
        if (outputs.keySet().stream().anyMatch(n -> n.startsWith("java."))) {
            return List.of();
        }
        ClassLoader rewritten = new ClassLoader(parent) {
            @Override
            protected Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
                synchronized (getClassLoadingLock(n)) {
                    byte[] b = outputs.get(n);
                    if (b == null) {
                        return super.loadClass(n, resolve);
                    }
                    Class<?> c = findLoadedClass(n);
                    return c != null ? c : defineClass(n, b, 0, b.length);
                }
            }
        };
        List<String> wrong = new ArrayList<>();
        for (String n : outputs.keySet()) {
            try {
                Class.forName(n, false, rewritten).getDeclaredMethods();
                linked[0]++;
            } catch (UnsupportedClassVersionError e) {
                // a newer class file than this JVM reads: BytesVerifier checked it
            } catch (VerifyError | ClassFormatError e) {
                wrong.add(n + ": " + e);
            } catch (LinkageError | ClassNotFoundException | SecurityException e) {
                // an absent optional dependency or a sealed package: not the rewriter's
            }
        }
        return wrong;
    }

    /** Each method's full text as ASM prints it, frames and max sizes included, by name and descriptor. */
    private static Map<String, String> methods(byte[] bytes) {
        ClassNode node = new ClassNode();
        new ClassReader(bytes).accept(node, 0);
        Map<String, String> out = new LinkedHashMap<>();
        for (MethodNode m : node.methods) {
            Textifier text = new Textifier();
            m.accept(new TraceMethodVisitor(text));
            StringWriter w = new StringWriter();
            text.print(new PrintWriter(w));
            out.put(m.name + m.desc, m.access + " " + w);
        }
        return out;
    }
}
