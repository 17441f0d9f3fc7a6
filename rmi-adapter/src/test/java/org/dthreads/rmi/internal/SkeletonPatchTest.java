package org.dthreads.rmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.dthreads.rmi.fixture.SkeletalImpl_Skel;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.util.CheckClassAdapter;

/** The skeleton prologue passes ASM's verifier and the JVM's (the class is loaded and linked). */
class SkeletonPatchTest {

    @Test
    void aPatchedSkeletonVerifiesAndLoads() throws Exception {
        byte[] original;
        try (InputStream in = SkeletalImpl_Skel.class.getResourceAsStream("SkeletalImpl_Skel.class")) {
            original = in.readAllBytes();
        }
        byte[] patched = RmiTransformer.patchSkeleton(new ClassReader(original));
        assertNotNull(patched);
        StringWriter problems = new StringWriter();
        CheckClassAdapter.verify(new ClassReader(patched), SkeletonPatchTest.class.getClassLoader(), false,
                new PrintWriter(problems));
        assertEquals("", problems.toString());
        Class<?> loaded = new ClassLoader(SkeletonPatchTest.class.getClassLoader()) {
            Class<?> define() {
                return defineClass(SkeletalImpl_Skel.class.getName(), patched, 0, patched.length);
            }
        }.define();
        assertNotNull(loaded.getDeclaredConstructor().newInstance(), "linked and verified by the JVM");
    }
}
