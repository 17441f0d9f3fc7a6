package org.dthreads.iiop.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.util.CheckClassAdapter;

/**
 * The JacORB jars the agent's patches are checked against (the one on the class path, 3.9, and
 * {@code -Ddthreads.test.otherJacorb}, 3.8), and the two checks every patched class must pass: ASM's
 * {@link CheckClassAdapter} and the JVM's own verifier, in a loader of its own.
 */
public final class JacorbJars {

    private JacorbJars() {
    }

    /** The class path's JacORB jar, then the other version's. */
    public static Stream<Path> all() throws Exception {
        Path current = Path.of(org.jacorb.orb.Delegate.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path other = Path.of(System.getProperty("dthreads.test.otherJacorb"));
        assertTrue(Files.isRegularFile(other), other.toString());
        return Stream.of(current, other);
    }

    /** The class path's JacORB jar. */
    public static Path current() throws Exception {
        return all().findFirst().orElseThrow();
    }

    /** The bytes of {@code internalName} (e.g. {@code org/jacorb/orb/Delegate}) in {@code jar}. */
    public static byte[] read(Path jar, String internalName) throws IOException {
        try (JarFile f = new JarFile(jar.toFile()); InputStream in = f.getInputStream(f.getEntry(internalName + ".class"))) {
            return in.readAllBytes();
        }
    }

    /**
     * Checks {@code patched} with ASM's checker against {@code jar}'s classes, then defines it in a loader of
     * its own, in place of the jar's copy, and links it, so the JVM's verifier runs; returns the linked class (its
     * loader stays open, so the caller may reflect on it).
     */
    public static Class<?> verifyAndLink(Path jar, String internalName, byte[] patched) throws Exception {
        try (ChildFirst loader = new ChildFirst(jar, Map.of())) {
            StringWriter problems = new StringWriter();
            CheckClassAdapter.verify(new ClassReader(patched), loader, false, new PrintWriter(problems));
            assertEquals("", problems.toString(), jar + " " + internalName);
        }
        ChildFirst loader = new ChildFirst(jar, Map.of(internalName, patched));
        Class<?> c = Class.forName(internalName.replace('/', '.'), true, loader);
        assertEquals(loader, c.getClassLoader(), "the patched copy was defined");
        return c;
    }

    /** Loads org.jacorb.* from the jar first; the classes in {@code defined} from the given bytes. */
    public static final class ChildFirst extends URLClassLoader {
        private final Map<String, byte[]> defined;

        public ChildFirst(Path jar, Map<String, byte[]> defined) throws IOException {
            super(new URL[] {jar.toUri().toURL()}, JacorbJars.class.getClassLoader());
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
}
