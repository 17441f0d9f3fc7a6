package org.dthreads.interop.agent;

import static org.dthreads.interop.agent.ForkedJvm.AGENT;
import static org.dthreads.interop.agent.ForkedJvm.classPath;
import static org.dthreads.interop.agent.ForkedJvm.java;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.dthreads.interop.agent.ForkedJvm.Result;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/** {@code java -jar dthreads-agent.jar instrument}: jars, signed jars, refusals, bad input, no partial output. */
class InstrumenterCliTest {

    @TempDir
    Path tmp;

    @BeforeAll
    static void agentIsBuilt() {
        ForkedJvm.assertAgentBuilt();
    }

    static Result instrument(String... args) {
        String[] all = new String[args.length + 3];
        all[0] = "-jar";
        all[1] = AGENT.toString();
        all[2] = "instrument";
        System.arraycopy(args, 0, all, 3, args.length);
        return java(all);
    }

    private static void jar(Path jar, Manifest manifest, Path classes, String... extraEntries) throws IOException {
        try (JarOutputStream out = manifest != null ? new JarOutputStream(Files.newOutputStream(jar), manifest)
                : new JarOutputStream(Files.newOutputStream(jar))) {
            for (int i = 0; i + 1 < extraEntries.length; i += 2) {
                out.putNextEntry(new JarEntry(extraEntries[i]));
                out.write(extraEntries[i + 1].getBytes());
                out.closeEntry();
            }
            try (Stream<Path> files = Files.walk(classes)) {
                for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                    out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                    out.write(Files.readAllBytes(f));
                    out.closeEntry();
                }
            }
        }
    }

    private List<String> listing(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void signedJarInJarOutRunsWithoutTheAgent() throws IOException {
        Path classes = ForkedJvm.fixtures(tmp.resolve("classes"));
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "example.conformance.Probe");
        Attributes digest = new Attributes();
        digest.putValue("SHA-256-Digest", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
        manifest.getEntries().put("example/conformance/Probe.class", digest);
        Path in = tmp.resolve("app.jar");
        jar(in, manifest, classes, "META-INF/SIGNER.SF", "Signature-Version: 1.0\n", "META-INF/SIGNER.RSA", "x",
                "app.properties", "k=v\n");
        Path out = tmp.resolve("dist/app-dthreads.jar");

        Result r = instrument("--cp", AGENT.toString(), in.toString(), out.toString());
        assertEquals(0, r.exit(), r::describe);
        assertTrue(r.err().contains("WARNING: app.jar is signed; its signature is removed"), r::describe);
        assertTrue(r.out().contains("remote interfaces twinned: 3"), r::describe);
        assertTrue(r.out().contains("resources copied: 2"), r::describe); // manifest, app.properties
        assertTrue(r.out().contains("signature files removed: 2"), r::describe);
        try (JarFile jar = new JarFile(out.toFile())) {
            assertNull(jar.getEntry("META-INF/SIGNER.SF"));
            assertNull(jar.getEntry("META-INF/SIGNER.RSA"));
            assertEquals("k=v\n", new String(jar.getInputStream(jar.getEntry("app.properties")).readAllBytes()));
            assertTrue(jar.getManifest().getEntries().isEmpty(), jar.getManifest().getEntries()::toString);
            assertEquals("example.conformance.Probe", jar.getManifest().getMainAttributes().getValue("Main-Class"));
        }
        assertEquals(List.of("app-dthreads.jar"), listing(out.getParent()));

        Result run = java("-cp", classPath(out, AGENT), "example.conformance.Probe");
        assertEquals(List.of("probe: emulated"), run.lines(), run::describe);

        // instrumenting again: every class is already rewritten and left as it is
        Path again = tmp.resolve("again.jar");
        Result twice = instrument(out.toString(), again.toString());
        assertEquals(0, twice.exit(), twice::describe);
        assertTrue(twice.out().contains("rewritten (monitors): 0 "), twice::describe);
        assertTrue(twice.out().contains("already rewritten"), twice::describe);
    }

    @Test
    void twinnedRemoteInterfaceWorksWithoutTheAgentAndIsNotTwinnedAgainWithIt() throws IOException {
        Path in = ForkedJvm.fixtures(tmp.resolve("in"));
        Path out = tmp.resolve("out");
        Result r = instrument("-q", in.toString(), out.toString());
        assertEquals(0, r.exit(), r::describe);
        assertTrue(r.out().contains("remote interfaces twinned: 3"), r::describe); // Greeter, EchoSite.Echo, IdentitySite.Who
        assertTrue(r.out().contains("legacy stubs patched: 2"), r::describe); // EchoLegacyStub, IdentitySite.WhoLegacyStub
        Result plain = java("-cp", in.toString(), "example.conformance.EchoSite");
        assertEquals(List.of("echo hi, held true", "legacy stub: echo there, held true", "methods: [echo]",
                "synchronized (stub) excludes the object's own synchronized method: false"), plain.lines(), plain::describe);
        Result offline = java("-cp", classPath(out, AGENT), "example.conformance.EchoSite");
        assertEquals(0, offline.exit(), offline::describe);
        assertEquals(plain.lines().subList(0, 2), offline.lines().subList(0, 2), offline::describe);
        assertTrue(offline.lines().get(2).matches("methods: \\[echo, echo\\S+\\]"), offline::describe);
        // remote monitors without the agent: the JRMP transport is found through the stub's class loader
        assertEquals("synchronized (stub) excludes the object's own synchronized method: true", offline.lines().get(3),
                offline::describe);
        Result both = java("-javaagent:" + AGENT, "-cp", out.toString(), "example.conformance.EchoSite");
        assertEquals(offline.lines(), both.lines(), both::describe);
    }

    /**
     * Offline, without the agent: legacy static stubs carry the caller's class (patched in the jar),
     * dynamic proxies do not (the JDK's RemoteObjectInvocationHandler is patched by the agent only)
     * unless wrapped with {@code DThreadsRmi.wrap}; with the agent all do.
     */
    @Test
    void offlineLegacyStubsCarryTheCallersClassProxiesNeedTheAgent() throws IOException {
        Path in = ForkedJvm.fixtures(tmp.resolve("in"));
        Path out = tmp.resolve("out");
        assertEquals(0, instrument("-q", in.toString(), out.toString()).exit());
        String main = "example.conformance.IdentitySite";
        Result offline = java("-cp", classPath(out, AGENT), main);
        assertEquals(List.of("proxy carries the caller's class: false", "legacy stub carries the caller's class: true",
                "wrapped proxy carries the caller's class: true"), offline.lines(), offline::describe);
        Result agent = java("-javaagent:" + AGENT, "-cp", in.toString(), main);
        assertEquals(List.of("proxy carries the caller's class: true", "legacy stub carries the caller's class: true",
                "wrapped proxy carries the caller's class: true"), agent.lines(), agent::describe);
        Result both = java("-javaagent:" + AGENT, "-cp", out.toString(), main);
        assertEquals(agent.lines(), both.lines(), both::describe);
    }

    /** A class the rewriter refuses: a static synchronized method in a Java 1.4 class file. */
    static byte[] refusedClass() {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        cw.visit(Opcodes.V1_4, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, "example/conformance/gen/Old", null,
                "java/lang/Object", null);
        MethodVisitor init = cw.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        init.visitInsn(Opcodes.RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
        MethodVisitor answer = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC | Opcodes.ACC_SYNCHRONIZED,
                "answer", "()I", null, null);
        answer.visitCode();
        answer.visitIntInsn(Opcodes.BIPUSH, 42);
        answer.visitInsn(Opcodes.IRETURN);
        answer.visitMaxs(0, 0);
        answer.visitEnd();
        MethodVisitor main = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "main", "([Ljava/lang/String;)V",
                null, null);
        main.visitCode();
        main.visitFieldInsn(Opcodes.GETSTATIC, "java/lang/System", "out", "Ljava/io/PrintStream;");
        main.visitMethodInsn(Opcodes.INVOKESTATIC, "example/conformance/gen/Old", "answer", "()I", false);
        main.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/io/PrintStream", "println", "(I)V", false);
        main.visitInsn(Opcodes.RETURN);
        main.visitMaxs(0, 0);
        main.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    @Test
    void aClassTheRewriterRefusesNeverStopsTheApplication() throws IOException {
        Path in = tmp.resolve("in");
        Files.createDirectories(in.resolve("example/conformance/gen"));
        Files.write(in.resolve("example/conformance/gen/Old.class"), refusedClass());
        Files.write(in.resolve("example/conformance/gen/Broken.class"), new byte[] {(byte) 0xCA, (byte) 0xFE, 1, 2});

        Result agent = java("-javaagent:" + AGENT, "-cp", in.toString(), "example.conformance.gen.Old");
        assertEquals(0, agent.exit(), agent::describe);
        assertEquals(List.of("42"), agent.lines(), agent::describe);
        assertTrue(agent.err().contains("example.conformance.gen.Old is not rewritten"), agent::describe);

        Path out = tmp.resolve("out");
        Result r = instrument(in.toString(), out.toString());
        assertEquals(0, r.exit(), r::describe);
        assertTrue(r.out().contains("classes seen: 2"), r::describe);
        assertTrue(r.out().contains("skipped: 2"), r::describe);
        assertTrue(r.out().contains("1 x not rewritten: static synchronized method in a class file older than Java 5"),
                r::describe);
        assertTrue(r.out().contains("1 x not a readable class file"), r::describe);
        Result run = java("-cp", classPath(out, AGENT), "example.conformance.gen.Old");
        assertEquals(List.of("42"), run.lines(), run::describe);
    }

    @Test
    void helpAndMisuse() throws IOException {
        Result help = java("-jar", AGENT.toString(), "--help");
        assertEquals(0, help.exit(), help::describe);
        assertTrue(help.out().startsWith("usage: java -jar dthreads-agent.jar instrument"), help::describe);
        assertEquals(0, instrument("--help").exit());
        assertEquals(2, java("-jar", AGENT.toString()).exit());
        Result unknown = instrument("--frobnicate", "a", "b");
        assertEquals(2, unknown.exit(), unknown::describe);
        assertTrue(unknown.err().contains("unknown option: --frobnicate"), unknown::describe);
        Result oneArg = instrument("a.jar");
        assertEquals(2, oneArg.exit(), oneArg::describe);
        assertTrue(oneArg.err().contains("expected an input and an output"), oneArg::describe);
    }

    @Test
    void badInputFailsCleanlyAndLeavesNothing() throws IOException {
        Path out = tmp.resolve("out");
        Files.createDirectories(out);

        Result missing = instrument(tmp.resolve("missing.jar").toString(), out.resolve("x.jar").toString());
        assertEquals(2, missing.exit(), missing::describe);
        assertTrue(missing.err().contains("input does not exist"), missing::describe);

        Path garbage = tmp.resolve("garbage.jar");
        Files.writeString(garbage, "this is not a zip file");
        Result corrupt = instrument(garbage.toString(), out.resolve("x.jar").toString());
        assertEquals(2, corrupt.exit(), corrupt::describe);
        assertTrue(corrupt.err().contains("not a readable jar"), corrupt::describe);

        Path classes = ForkedJvm.fixtures(tmp.resolve("classes"));
        Result same = instrument(classes.toString(), classes.toString());
        assertEquals(2, same.exit(), same::describe);
        assertTrue(same.err().contains("output must differ from the input"), same::describe);
        Result inside = instrument(classes.toString(), classes.resolve("sub").toString());
        assertEquals(2, inside.exit(), inside::describe);

        Result dirToJar = instrument(classes.toString(), out.resolve("classes.jar").toString());
        assertEquals(2, dirToJar.exit(), dirToJar::describe);
        assertTrue(dirToJar.err().contains("not a jar"), dirToJar::describe);

        Path file = tmp.resolve("a-file");
        Files.writeString(file, "x");
        Result unwritable = instrument(classes.toString(), file.resolve("out").toString());
        assertEquals(2, unwritable.exit(), unwritable::describe);
        assertTrue(unwritable.err().contains("cannot write next to the output"), unwritable::describe);

        // an entry whose data is corrupt (invalid deflate block type): fails half-way, leaves nothing
        Path damaged = tmp.resolve("damaged.jar");
        jar(damaged, null, classes, "big.txt", "dthreads ".repeat(10_000));
        try (RandomAccessFile raf = new RandomAccessFile(damaged.toFile(), "rw")) {
            raf.seek(26);
            int nameLength = Short.toUnsignedInt(Short.reverseBytes(raf.readShort()));
            int extraLength = Short.toUnsignedInt(Short.reverseBytes(raf.readShort()));
            raf.seek(30 + nameLength + extraLength);
            raf.write(0xFF);
        }
        Result halfWay = instrument(damaged.toString(), out.resolve("damaged-dthreads.jar").toString());
        assertNotEquals(0, halfWay.exit(), halfWay::describe);
        assertTrue(halfWay.err().contains("dthreads instrument: "), halfWay::describe);
        assertFalse(halfWay.out().contains("wrote"), halfWay::describe);

        assertEquals(List.of(), listing(out), "nothing left behind");
    }
}
