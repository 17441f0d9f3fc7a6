package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.util.CheckClassAdapter;
import org.slf4j.LoggerFactory;

/**
 * The patch of {@code RequestOutputStream} that writes the identity context inline: its hook point is in
 * JacORB 3.9 and 3.8; the patched class passes ASM's checker and the JVM's verifier; it is applied once;
 * a JacORB whose constructor differs is left alone with one log line.
 */
class JacorbInlinePatchTest {

    static Stream<Path> jacorbJars() throws Exception {
        Path current = Path.of(org.jacorb.orb.Delegate.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path other = Path.of(System.getProperty("dthreads.test.otherJacorb"));
        assertTrue(Files.isRegularFile(other), other.toString());
        return Stream.of(current, other);
    }

    private static byte[] read(Path jar) throws IOException {
        try (JarFile f = new JarFile(jar.toFile());
                InputStream in = f.getInputStream(f.getEntry(JacorbInlinePatch.REQUEST_OUTPUT_STREAM + ".class"))) {
            return in.readAllBytes();
        }
    }

    /** Loads org.jacorb.* from {@code jar} first, the classes in {@code defined} from the given bytes. */
    private static final class ChildFirst extends URLClassLoader {
        private final Map<String, byte[]> defined;

        ChildFirst(Path jar, Map<String, byte[]> defined) throws IOException {
            super(new URL[] {jar.toUri().toURL()}, JacorbInlinePatchTest.class.getClassLoader());
            this.defined = defined;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null && name.startsWith("org.jacorb.")) {
                    byte[] b = defined.get(name.replace('.', '/'));
                    c = b != null ? defineClass(name, b, 0, b.length) : findClass(name);
                }
                return c != null ? c : super.loadClass(name, resolve);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("jacorbJars")
    void theHookPointIsThereAndThePatchedClassVerifies(Path jar) throws Exception {
        byte[] original = read(jar);
        assertArrayEquals(new int[] {2, 0}, JacorbInlinePatch.count(original), jar.toString());
        byte[] patched = JacorbInlinePatch.transform(original);
        assertNotNull(patched);
        assertArrayEquals(new int[] {0, 2}, JacorbInlinePatch.count(patched));
        assertNull(JacorbInlinePatch.transform(patched), "patched once");
        try (ChildFirst loader = new ChildFirst(jar, Map.of())) {
            StringWriter problems = new StringWriter();
            CheckClassAdapter.verify(new ClassReader(patched), loader, false, new PrintWriter(problems));
            assertEquals("", problems.toString(), jar.toString());
        }
        // the JVM's own verifier: define the patched class in a loader of its own and link it
        try (ChildFirst loader = new ChildFirst(jar, Map.of(JacorbInlinePatch.REQUEST_OUTPUT_STREAM, patched))) {
            Class<?> c = Class.forName(JacorbInlinePatch.REQUEST_OUTPUT_STREAM.replace('/', '.'), true, loader);
            assertEquals(loader, c.getClassLoader());
            c.getDeclaredConstructors(); // linked
        }
    }

    @Test
    void theRunningJacorbIsPatched() throws Exception {
        // the test agent installs JacorbPatch, as the real agent does
        try (InputStream in = org.jacorb.orb.giop.RequestOutputStream.class.getResourceAsStream("RequestOutputStream.class")) {
            assertArrayEquals(new int[] {2, 0}, JacorbInlinePatch.count(in.readAllBytes()), "the jar's bytes");
        }
        byte[] patched = new JacorbPatch().transform(null, getClass().getClassLoader(), JacorbInlinePatch.REQUEST_OUTPUT_STREAM,
                null, null, read(jacorbJars().findFirst().orElseThrow()));
        assertArrayEquals(new int[] {0, 2}, JacorbInlinePatch.count(patched));
    }

    /** RequestOutputStream bytes whose header constructor writes one list only, as a different JacORB might. */
    private static byte[] withOneListWrite(byte[] bytes) {
        ClassReader r = new ClassReader(bytes);
        ClassWriter w = new ClassWriter(r, 0);
        r.accept(new ClassVisitor(Opcodes.ASM9, w) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
                if (!"<init>".equals(name) || !JacorbInlinePatch.CONSTRUCTOR_DESC.equals(descriptor)) {
                    return mv;
                }
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    private boolean first = true;

                    @Override
                    public void visitMethodInsn(int opcode, String owner, String method, String desc, boolean itf) {
                        if (first && JacorbInlinePatch.LIST_HELPER.equals(owner)) {
                            first = false;
                            owner = "org/omg/IOP/SomethingElseHelper";
                        }
                        super.visitMethodInsn(opcode, owner, method, desc, itf);
                    }
                };
            }
        }, 0);
        return w.toByteArray();
    }

    @Test
    void aDifferentConstructorLeavesTheClassAloneAndSaysWhy() throws Exception {
        byte[] other = withOneListWrite(read(jacorbJars().findFirst().orElseThrow()));
        Logger logger = (Logger) LoggerFactory.getLogger(JacorbPatch.class.getName());
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            assertNull(new JacorbPatch().transform(null, getClass().getClassLoader(), JacorbInlinePatch.REQUEST_OUTPUT_STREAM,
                    null, null, other));
            assertEquals(1, appender.list.size(), appender.list.toString());
            assertTrue(appender.list.get(0).getFormattedMessage().contains("makes 1 calls"), appender.list.toString());
        } finally {
            logger.detachAppender(appender);
        }
    }
}
