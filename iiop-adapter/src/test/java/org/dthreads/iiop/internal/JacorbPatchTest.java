package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.dthreads.iiop.support.Orbs;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.util.CheckClassAdapter;
import org.omg.CORBA.ORB;
import org.slf4j.LoggerFactory;

/**
 * The JacORB hooks of the fast path: the hook points are there in JacORB 3.9 (the class path) and 3.8
 * (a separate class path, {@code dthreads.test.otherJacorb}); the patched classes pass ASM's checker and
 * the JVM's verifier; a missing hook point leaves the class alone, says which, and the ORB keeps the
 * portable path; an ORB with the initializer registers no interceptors when the hooks are in.
 */
class JacorbPatchTest {

    static Stream<Path> jacorbJars() throws Exception {
        Path current = Path.of(org.jacorb.orb.Delegate.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path other = Path.of(System.getProperty("dthreads.test.otherJacorb"));
        assertTrue(Files.isRegularFile(other), other.toString());
        return Stream.of(current, other);
    }

    private static byte[] read(Path jar, String internalName) throws IOException {
        try (JarFile f = new JarFile(jar.toFile()); InputStream in = f.getInputStream(f.getEntry(internalName + ".class"))) {
            return in.readAllBytes();
        }
    }

    /** Loads org.jacorb.* from {@code jar} first; the classes in {@code defined} from the given bytes. */
    private static final class ChildFirst extends URLClassLoader {
        private final Map<String, byte[]> defined;

        ChildFirst(Path jar, Map<String, byte[]> defined) throws IOException {
            super(new URL[] {jar.toUri().toURL()}, JacorbPatchTest.class.getClassLoader());
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
    void hookPointsArePresentAndThePatchedClassesVerify(Path jar) throws Exception {
        for (boolean originalCallbacks : new boolean[] {false, true}) { // -Ddthreads.callbacks=original: other wrappers
            for (String name : new String[] {JacorbPatch.DELEGATE, JacorbPatch.REQUEST_PROCESSOR}) {
                String what = jar + " " + name + (originalCallbacks ? " (callbacks=original)" : "");
                byte[] original = read(jar, name);
                assertNull(JacorbPatch.missingHookPoint(original, name), what);
                byte[] patched = JacorbPatch.patch(original, name, originalCallbacks);
                assertTrue(JacorbPatch.alreadyPatched(patched));
                try (ChildFirst loader = new ChildFirst(jar, Map.of())) {
                    StringWriter problems = new StringWriter();
                    CheckClassAdapter.verify(new ClassReader(patched), loader, false, new PrintWriter(problems));
                    assertEquals("", problems.toString(), what);
                }
                // the JVM's own verifier: define the patched class in a loader of its own and link it
                try (ChildFirst loader = new ChildFirst(jar, Map.of(name, patched))) {
                    Class<?> c = Class.forName(name.replace('/', '.'), true, loader);
                    assertTrue(Arrays.stream(c.getDeclaredMethods()).map(Method::getName)
                            .anyMatch(n -> n.endsWith(JacorbPatch.SUFFIX)), what);
                }
            }
        }
    }

    /** Delegate bytes without servant_postinvoke, as a JacORB version lacking that hook point would be. */
    private static byte[] withoutPostinvoke(byte[] bytes) {
        ClassReader r = new ClassReader(bytes);
        ClassWriter w = new ClassWriter(r, 0);
        r.accept(new ClassVisitor(Opcodes.ASM9, w) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                return super.visitMethod(access, name.equals(JacorbPatch.POSTINVOKE) ? "servant_postinvoke_gone" : name,
                        descriptor, signature, exceptions);
            }
        }, 0);
        return w.toByteArray();
    }

    @Test
    void aMissingHookPointLeavesTheClassAloneSaysWhichAndTheOrbStaysPortable() throws Exception {
        Path jar = jacorbJars().findFirst().orElseThrow();
        byte[] broken = withoutPostinvoke(read(jar, JacorbPatch.DELEGATE));
        String missing = JacorbPatch.missingHookPoint(broken, JacorbPatch.DELEGATE);
        assertNotNull(missing);
        assertTrue(missing.contains("servant_postinvoke"), missing);

        Logger logger = (Logger) LoggerFactory.getLogger(JacorbPatch.class.getName());
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            assertNull(new JacorbPatch().transform(null, getClass().getClassLoader(), JacorbPatch.DELEGATE, null, null, broken));
            assertEquals(1, appender.list.size(), appender.list.toString());
            assertTrue(appender.list.get(0).getFormattedMessage().contains("servant_postinvoke"));
        } finally {
            logger.detachAppender(appender);
        }
        // such a Delegate stays unpatched (the test agent refuses it as well): the ORB keeps Portable Interceptors
        try (ChildFirst loader = new ChildFirst(jar, Map.of(JacorbPatch.DELEGATE, broken))) {
            Class.forName("org.jacorb.orb.Delegate", false, loader);
            String why = JacorbFastPath.unpatched(loader);
            assertNotNull(why);
            assertTrue(why.contains("org.jacorb.orb.Delegate"), why);
        }
    }

    @Test
    void withTheHooksTheOrbRegistersNoInterceptors() {
        boolean portable = "portable".equals(System.getProperty(FastPaths.PATH_PROPERTY));
        ORB orb = Orbs.init(Orbs.Kind.JACORB, true);
        try {
            org.jacorb.orb.ORB jacorb = (org.jacorb.orb.ORB) orb;
            assertNull(JacorbFastPath.unpatched(orb.getClass().getClassLoader()), "the test agent patched JacORB");
            assertEquals(portable, jacorb.hasClientRequestInterceptors());
            assertEquals(portable, jacorb.hasServerRequestInterceptors());
            assertEquals(!portable, JacorbFastPath.enabled(orb));
        } finally {
            Orbs.shutdown(orb);
        }
        ORB plain = Orbs.init(Orbs.Kind.JACORB, false);
        try {
            assertFalse(JacorbFastPath.enabled(plain), "an ORB without the initializer carries nothing");
        } finally {
            Orbs.shutdown(plain);
        }
    }
}
