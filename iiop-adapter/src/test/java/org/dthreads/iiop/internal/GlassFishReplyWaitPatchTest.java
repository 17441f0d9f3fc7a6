package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.corba.ee.impl.transport.ResponseWaitingRoomImpl;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.dthreads.iiop.support.LogCapture;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.util.CheckClassAdapter;

/**
 * The patch of the GlassFish ORB's reply wait (issue 18, original mode): its shape is there in the ORB of the pom
 * (4.2.5); the patched class passes ASM's checker and the JVM's verifier, has the renamed original with its one
 * {@code awaitNanos} redirected (the condition read dropped) and a wrapper of the original name and access; it is
 * applied once; a class whose wait differs is left alone with one log line, and the dispatcher then sees it as
 * unpatched (the helper-thread path).
 */
class GlassFishReplyWaitPatchTest {

    private static Path jar() throws Exception {
        return Path.of(ResponseWaitingRoomImpl.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static byte[] original() throws Exception {
        try (InputStream in = ResponseWaitingRoomImpl.class.getResourceAsStream("ResponseWaitingRoomImpl.class")) {
            return in.readAllBytes();
        }
    }

    /** Loads com.sun.corba.ee.* from the ORB's jar first; the classes in {@code defined} from the given bytes. */
    private static final class ChildFirst extends URLClassLoader {
        private final Map<String, byte[]> defined;

        ChildFirst(Path jar, Map<String, byte[]> defined) throws Exception {
            super(new URL[] {jar.toUri().toURL()}, GlassFishReplyWaitPatchTest.class.getClassLoader());
            this.defined = defined;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null && name.startsWith("com.sun.corba.ee.impl.transport.")) {
                    byte[] b = defined.get(name.replace('.', '/'));
                    c = b != null ? defineClass(name, b, 0, b.length) : findClass(name);
                }
                return c != null ? c : super.loadClass(name, resolve);
            }
        }
    }

    /** The calls made by {@code method} of {@code bytes}, as owner.name+desc. */
    private static List<String> calls(byte[] bytes, String method) {
        List<String> calls = new ArrayList<>();
        new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exc) {
                if (!name.equals(method)) {
                    return null;
                }
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String name, String desc, boolean itf) {
                        calls.add(owner + "." + name + desc);
                    }
                };
            }
        }, 0);
        return calls;
    }

    @Test
    void theWaitLoopIsThereAndThePatchedClassVerifies() throws Exception {
        byte[] original = original();
        assertNull(GlassFishReplyWaitPatch.shapeProblem(original));
        byte[] patched = GlassFishReplyWaitPatch.transform(original);
        assertNotNull(patched);
        assertNull(GlassFishReplyWaitPatch.transform(patched), "patched once");

        String renamed = GlassFishReplyWaitPatch.METHOD + JacorbPatch.SUFFIX;
        List<String> inOriginal = calls(patched, renamed);
        String lookup = "java/lang/invoke/MethodHandles.lookup()Ljava/lang/invoke/MethodHandles$Lookup;";
        assertFalse(inOriginal.contains("java/util/concurrent/locks/Condition.awaitNanos(J)J"), inOriginal.toString());
        List<String> expected = new ArrayList<>();
        for (String c : calls(original, GlassFishReplyWaitPatch.METHOD)) {
            if (c.equals("java/util/concurrent/locks/Condition.awaitNanos(J)J")) {
                expected.add(lookup);
                expected.add(GlassFishReplyWaitPatch.HOOK + ".awaitNanos(Ljava/lang/Object;JLjava/lang/invoke/MethodHandles$Lookup;)J");
            } else {
                expected.add(c);
            }
        }
        assertEquals(expected, inOriginal, "the await redirected, nothing else changed");
        assertEquals(List.of(lookup, GlassFishReplyWaitPatch.HOOK + ".waitForResponse(Ljava/lang/Object;Ljava/lang/Object;"
                + "Ljava/lang/invoke/MethodHandles$Lookup;)Ljava/lang/Object;"), calls(patched, GlassFishReplyWaitPatch.METHOD));

        try (ChildFirst loader = new ChildFirst(jar(), Map.of())) {
            StringWriter problems = new StringWriter();
            CheckClassAdapter.verify(new ClassReader(patched), loader, false, new PrintWriter(problems));
            assertEquals("", problems.toString());
        }
        ChildFirst loader = new ChildFirst(jar(), Map.of(GlassFishReplyWaitPatch.ROOM, patched));
        Class<?> c = Class.forName(GlassFishReplyWaitPatch.ROOM.replace('/', '.'), true, loader);
        assertEquals(loader, c.getClassLoader(), "the patched copy was defined and linked");
        Class<?> mediator = Class.forName("com.sun.corba.ee.spi.protocol.MessageMediator", false, loader);
        Method wrapper = c.getDeclaredMethod(GlassFishReplyWaitPatch.METHOD, mediator);
        assertTrue(Modifier.isPublic(wrapper.getModifiers()), wrapper.toString());
        Method moved = c.getDeclaredMethod(renamed, mediator);
        assertTrue(Modifier.isPrivate(moved.getModifiers()) && moved.isSynthetic(), moved.toString());
        assertTrue(GlassFishReplyWaitPatch.patched(c), "seen as patched");
        assertFalse(GlassFishReplyWaitPatch.patched(ResponseWaitingRoomImpl.class), "the class path's copy is not");
    }

    /** ResponseWaitingRoomImpl bytes whose wait loop waits with {@code await(long, TimeUnit)}, as another ORB might. */
    private static byte[] withOtherWait(byte[] bytes) {
        ClassReader r = new ClassReader(bytes);
        ClassWriter w = new ClassWriter(r, ClassWriter.COMPUTE_MAXS);
        r.accept(new ClassVisitor(Opcodes.ASM9, w) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exc) {
                MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exc);
                if (!name.equals(GlassFishReplyWaitPatch.METHOD)) {
                    return mv;
                }
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String method, String desc, boolean itf) {
                        if (method.equals("awaitNanos")) {
                            super.visitFieldInsn(Opcodes.GETSTATIC, "java/util/concurrent/TimeUnit", "NANOSECONDS",
                                    "Ljava/util/concurrent/TimeUnit;");
                            super.visitMethodInsn(opcode, owner, "await", "(JLjava/util/concurrent/TimeUnit;)Z", itf);
                            super.visitInsn(Opcodes.POP);
                            super.visitInsn(Opcodes.LCONST_0);
                            return;
                        }
                        super.visitMethodInsn(opcode, owner, method, desc, itf);
                    }
                };
            }
        }, 0);
        return w.toByteArray();
    }

    @Test
    void aDifferentWaitLoopLeavesTheClassAloneAndSaysWhy() throws Exception {
        byte[] other = withOtherWait(original());
        assertNotNull(GlassFishReplyWaitPatch.shapeProblem(other));
        try (LogCapture log = new LogCapture(GlassFishReplyWaitPatch.class.getName())) {
            assertNull(GlassFishReplyWaitPatch.transform(other));
            assertEquals(1, log.messages().size(), log.messages().toString());
            assertTrue(log.messages().get(0).contains("not of the expected shape"), log.messages().toString());
        }
        // loaded as it is, the dispatcher sees no patched wait and keeps the helper-thread path
        try (ChildFirst loader = new ChildFirst(jar(), Map.of(GlassFishReplyWaitPatch.ROOM, other))) {
            assertFalse(GlassFishReplyWaitPatch.patched(
                    Class.forName(GlassFishReplyWaitPatch.ROOM.replace('/', '.'), true, loader)));
        }
    }
}
