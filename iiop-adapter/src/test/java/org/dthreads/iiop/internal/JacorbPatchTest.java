package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Stream;
import org.dthreads.iiop.support.JacorbJars;
import org.dthreads.iiop.support.LogCapture;
import org.dthreads.iiop.support.Orbs;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.omg.CORBA.ORB;

/**
 * The JacORB hooks of the fast path: the hook points are there in JacORB 3.9 (the class path) and 3.8
 * (a separate class path, {@code dthreads.test.otherJacorb}); the patched classes pass ASM's checker and
 * the JVM's verifier; a missing hook point leaves the class alone, says which, and the ORB keeps the
 * portable path; an ORB with the initializer registers no interceptors when the hooks are in.
 */
class JacorbPatchTest {

    static Stream<Path> jacorbJars() throws Exception {
        return JacorbJars.all();
    }

    @ParameterizedTest
    @MethodSource("jacorbJars")
    void hookPointsArePresentAndThePatchedClassesVerify(Path jar) throws Exception {
        for (boolean originalCallbacks : new boolean[] {false, true}) { // -Ddthreads.callbacks=original: other wrappers
            for (String name : new String[] {JacorbPatch.DELEGATE, JacorbPatch.REQUEST_PROCESSOR}) {
                String what = jar + " " + name + (originalCallbacks ? " (callbacks=original)" : "");
                byte[] original = JacorbJars.read(jar, name);
                assertNull(JacorbPatch.missingHookPoint(original, name), what);
                byte[] patched = JacorbPatch.patch(original, name, originalCallbacks);
                assertTrue(JacorbPatch.alreadyPatched(patched));
                Class<?> c = JacorbJars.verifyAndLink(jar, name, patched);
                assertTrue(Arrays.stream(c.getDeclaredMethods()).map(Method::getName)
                        .anyMatch(n -> n.endsWith(JacorbPatch.SUFFIX)), what);
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
        Path jar = JacorbJars.current();
        byte[] broken = withoutPostinvoke(JacorbJars.read(jar, JacorbPatch.DELEGATE));
        String missing = JacorbPatch.missingHookPoint(broken, JacorbPatch.DELEGATE);
        assertNotNull(missing);
        assertTrue(missing.contains("servant_postinvoke"), missing);

        try (LogCapture log = new LogCapture(JacorbPatch.class.getName())) {
            assertNull(new JacorbPatch().transform(null, getClass().getClassLoader(), JacorbPatch.DELEGATE, null, null, broken));
            assertEquals(1, log.messages().size(), log.messages().toString());
            assertTrue(log.messages().get(0).contains("servant_postinvoke"));
        }
        // such a Delegate stays unpatched (the test agent refuses it as well): the ORB keeps Portable Interceptors
        try (JacorbJars.ChildFirst loader = new JacorbJars.ChildFirst(jar, Map.of(JacorbPatch.DELEGATE, broken))) {
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
