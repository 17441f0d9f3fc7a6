package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.dthreads.iiop.support.JacorbJars;
import org.dthreads.iiop.support.LogCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * The patch of {@code RequestOutputStream} that writes the identity context inline: its hook point is in
 * JacORB 3.9 and 3.8; the patched class passes ASM's checker and the JVM's verifier; it is applied once;
 * a JacORB whose constructor differs is left alone with one log line.
 */
class JacorbInlinePatchTest {

    static Stream<Path> jacorbJars() throws Exception {
        return JacorbJars.all();
    }

    private static byte[] read(Path jar) throws IOException {
        return JacorbJars.read(jar, JacorbInlinePatch.REQUEST_OUTPUT_STREAM);
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
        JacorbJars.verifyAndLink(jar, JacorbInlinePatch.REQUEST_OUTPUT_STREAM, patched).getDeclaredConstructors();
    }

    @Test
    void theRunningJacorbIsPatched() throws Exception {
        // the test agent installs JacorbPatch, as the real agent does
        try (InputStream in = org.jacorb.orb.giop.RequestOutputStream.class.getResourceAsStream("RequestOutputStream.class")) {
            assertArrayEquals(new int[] {2, 0}, JacorbInlinePatch.count(in.readAllBytes()), "the jar's bytes");
        }
        byte[] patched = new JacorbPatch().transform(null, getClass().getClassLoader(), JacorbInlinePatch.REQUEST_OUTPUT_STREAM,
                null, null, read(JacorbJars.current()));
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
        byte[] other = withOneListWrite(read(JacorbJars.current()));
        try (LogCapture log = new LogCapture(JacorbPatch.class.getName())) {
            assertNull(new JacorbPatch().transform(null, getClass().getClassLoader(), JacorbInlinePatch.REQUEST_OUTPUT_STREAM,
                    null, null, other));
            assertEquals(1, log.messages().size(), log.messages().toString());
            assertTrue(log.messages().get(0).contains("makes 1 calls"), log.messages().toString());
        }
    }
}
