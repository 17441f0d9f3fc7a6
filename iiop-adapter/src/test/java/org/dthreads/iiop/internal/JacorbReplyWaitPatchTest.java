package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * The patch of {@code ReplyPlaceholder}'s reply wait (issue 18, original mode): its shape is there in JacORB 3.9 and
 * 3.8; the patched class passes ASM's checker and the JVM's verifier, has the renamed original with its one wait
 * redirected and a wrapper of the original name and access; it is applied once; a class whose wait loop differs is
 * left alone with one log line, and the adapter then sees it as unpatched (the helper-thread path).
 */
class JacorbReplyWaitPatchTest {

    static Stream<Path> jacorbJars() throws Exception {
        return JacorbJars.all();
    }

    private static byte[] read(Path jar) throws Exception {
        return JacorbJars.read(jar, JacorbReplyWaitPatch.REPLY_PLACEHOLDER);
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

    @ParameterizedTest
    @MethodSource("jacorbJars")
    void theWaitLoopIsThereAndThePatchedClassVerifies(Path jar) throws Exception {
        byte[] original = read(jar);
        assertNull(JacorbReplyWaitPatch.shapeProblem(original), jar.toString());
        byte[] patched = JacorbReplyWaitPatch.transform(original);
        assertNotNull(patched);
        assertNull(JacorbReplyWaitPatch.transform(patched), "patched once");

        String renamed = JacorbReplyWaitPatch.METHOD + JacorbPatch.SUFFIX;
        List<String> inOriginal = calls(patched, renamed);
        assertFalse(inOriginal.contains("java/lang/Object.wait(J)V"), inOriginal.toString());
        assertEquals(1, inOriginal.stream().filter(c -> c.equals(JacorbReplyWaitPatch.HOOK + ".await(Ljava/lang/Object;J)V"))
                .count(), inOriginal.toString());
        assertEquals(calls(original, JacorbReplyWaitPatch.METHOD).size(), inOriginal.size(), "nothing else changed");
        assertEquals(List.of("java/lang/invoke/MethodHandles.lookup()Ljava/lang/invoke/MethodHandles$Lookup;",
                JacorbReplyWaitPatch.HOOK + ".getInputStream(Ljava/lang/Object;ZLjava/lang/invoke/MethodHandles$Lookup;)"
                        + "Ljava/lang/Object;"), calls(patched, JacorbReplyWaitPatch.METHOD));

        Class<?> c = JacorbJars.verifyAndLink(jar, JacorbReplyWaitPatch.REPLY_PLACEHOLDER, patched);
        Method wrapper = c.getDeclaredMethod(JacorbReplyWaitPatch.METHOD, boolean.class);
        assertTrue(Modifier.isProtected(wrapper.getModifiers()), wrapper.toString());
        Method moved = c.getDeclaredMethod(renamed, boolean.class);
        assertTrue(Modifier.isPrivate(moved.getModifiers()) && moved.isSynthetic(), moved.toString());
        assertTrue(JacorbReplyWaitPatch.patched(c.getClassLoader()), "seen as patched");
    }

    @ParameterizedTest
    @MethodSource("jacorbJars")
    void theTimersWaitIsRedirectedOnceAndThePatchedClassVerifies(Path jar) throws Exception {
        byte[] original = JacorbJars.read(jar, JacorbReplyWaitPatch.TIMER);
        assertNull(JacorbReplyWaitPatch.timerShapeProblem(original), jar.toString());
        byte[] patched = JacorbReplyWaitPatch.transformTimer(original);
        assertNotNull(patched);
        assertNull(JacorbReplyWaitPatch.transformTimer(patched), "patched once");
        List<String> before = calls(original, "run");
        List<String> after = calls(patched, "run");
        assertFalse(after.contains("java/lang/Object.wait(J)V"), after.toString());
        List<String> expected = new ArrayList<>();
        for (String call : before) {
            if (call.equals("java/lang/Object.wait(J)V")) {
                expected.add("java/lang/invoke/MethodHandles.lookup()Ljava/lang/invoke/MethodHandles$Lookup;");
                expected.add(JacorbReplyWaitPatch.HOOK
                        + ".timerWait(Ljava/lang/Object;JLjava/lang/Object;Ljava/lang/invoke/MethodHandles$Lookup;)V");
            } else {
                expected.add(call);
            }
        }
        assertEquals(expected, after, "only the wait changed");
        JacorbJars.verifyAndLink(jar, JacorbReplyWaitPatch.TIMER, patched);
    }

    @Test
    void anUnpatchedJacorbIsSeenAsSuch() throws Exception {
        Path jar = JacorbJars.current();
        try (JacorbJars.ChildFirst loader = new JacorbJars.ChildFirst(jar, Map.of())) {
            assertFalse(JacorbReplyWaitPatch.patched(loader));
        }
    }

    /** ReplyPlaceholder bytes whose wait loop waits with {@code wait(long, int)}, as a different JacORB might. */
    private static byte[] withOtherWait(byte[] bytes) {
        ClassReader r = new ClassReader(bytes);
        ClassWriter w = new ClassWriter(r, ClassWriter.COMPUTE_MAXS);
        r.accept(new ClassVisitor(Opcodes.ASM9, w) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exc) {
                MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exc);
                if (!name.equals(JacorbReplyWaitPatch.METHOD)) {
                    return mv;
                }
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String method, String desc, boolean itf) {
                        if (method.equals("wait") && desc.equals("(J)V")) {
                            super.visitInsn(Opcodes.ICONST_0);
                            desc = "(JI)V";
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
        Path jar = JacorbJars.current();
        byte[] other = withOtherWait(read(jar));
        assertNotNull(JacorbReplyWaitPatch.shapeProblem(other));
        try (LogCapture log = new LogCapture(JacorbPatch.class.getName())) {
            assertNull(JacorbReplyWaitPatch.transform(other));
            assertEquals(1, log.messages().size(), log.messages().toString());
            assertTrue(log.messages().get(0).contains("not of the expected shape"), log.messages().toString());
        }
        // loaded as it is, the adapter sees no patched wait and keeps the helper-thread path
        try (JacorbJars.ChildFirst loader = new JacorbJars.ChildFirst(jar,
                Map.of(JacorbReplyWaitPatch.REPLY_PLACEHOLDER, other))) {
            assertFalse(JacorbReplyWaitPatch.patched(loader));
        }
    }
}
