package org.dthreads.monitor.internal.rewriter;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicBoolean;
import org.dthreads.monitor.Monitors;
import org.dthreads.monitor.internal.LostExits;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * {@link ExitOverflowGuard} on exits whose call overflows, made deterministic: the guarded calls go to
 * {@link FakeExits}, which throws {@link StackOverflowError} the way a failed stack bang does (before doing
 * anything). Each case runs guarded and, as the control, unguarded.
 */
@Timeout(value = 30, unit = SECONDS)
class ExitOverflowGuardTest {

    private static final String FAKE = FakeExits.class.getName().replace('.', '/');

    /** Stand-in for {@code Monitors.exit}: throws on its first {@code failing} calls, else does nothing. */
    public static final class FakeExits {
        public static int calls;
        public static int failing;

        public static void exit(Object lock) {
            if (++calls <= failing) {
                throw new StackOverflowError("fake stack bang");
            }
        }
    }

    @BeforeEach
    void reset() {
        FakeExits.calls = 0;
        FakeExits.failing = 0;
        LostExits.settleQuietly();
    }

    @Test
    void anOverflowedExitIsRecordedRethrownAndPaidByTheNextThread() throws Throwable {
        Class<?> guarded = load(true);
        Object lock = new Object();
        Monitors.enter(lock);
        FakeExits.failing = 1;
        int before = recordedOverflows();
        InvocationTargetException thrown = assertThrows(InvocationTargetException.class,
                () -> method(guarded, "plainExit").invoke(null, lock));
        assertTrue(thrown.getCause() instanceof StackOverflowError, thrown.getCause().toString());
        assertEquals(before + 1, recordedOverflows());
        assertSame(lock, LostExits.OVERFLOWED[before]);
        assertTrue(LostExits.pendingRepairs);
        // the level is a debt now: another thread pays it and takes the monitor
        AtomicBoolean got = new AtomicBoolean();
        Thread other = new Thread(() -> {
            Monitors.enter(lock);
            got.set(true);
            Monitors.exit(lock);
        });
        other.start();
        other.join(SECONDS.toMillis(10));
        assertTrue(got.get(), "the recorded exit was not paid: the monitor is still held");
    }

    @Test
    void theOverflowReachesTheCatchBlocksTheCallHad() throws Throwable {
        FakeExits.failing = 1;
        assertEquals("caught", method(load(true), "caughtAround").invoke(null, new Object()));
        FakeExits.calls = 0;
        assertEquals("caught", method(load(false), "caughtAround").invoke(null, new Object()), "control");
    }

    @Test
    void theBlocksOwnReleaseHandlerDoesNotExitAgain() throws Throwable {
        FakeExits.failing = 1;
        assertThrows(InvocationTargetException.class,
                () -> method(load(true), "releaseHandlerShape").invoke(null, new Object()));
        assertEquals(1, FakeExits.calls, "the recorded level was released a second time by the release handler");
        FakeExits.calls = 0;
        assertThrows(InvocationTargetException.class,
                () -> method(load(false), "releaseHandlerShape").invoke(null, new Object()));
        assertEquals(2, FakeExits.calls, "control: unguarded, the release handler retries the exit");
    }

    @Test
    void theSitesOfOneLockWithNoOtherHandlerShareOneRecord() throws Throwable {
        ClassNode node = new ClassNode();
        new org.objectweb.asm.ClassReader(bytes(true)).accept(node, 0);
        MethodNode shape = node.methods.stream().filter(m -> m.name.equals("failingBodyShape")).findFirst().orElseThrow();
        java.util.List<org.objectweb.asm.tree.TryCatchBlockNode> overflows = shape.tryCatchBlocks.stream()
                .filter(t -> "java/lang/StackOverflowError".equals(t.type)).toList();
        assertEquals(2, overflows.size(), "both exit calls guarded");
        assertSame(overflows.get(0).handler, overflows.get(1).handler, "one record for both sites");
        // the second site (the release handler's exit, after the body threw) is recorded through the shared record
        Object lock = new Object();
        Monitors.enter(lock);
        FakeExits.failing = 1;
        int before = recordedOverflows();
        InvocationTargetException thrown = assertThrows(InvocationTargetException.class,
                () -> method(load(true), "failingBodyShape").invoke(null, lock, true));
        assertTrue(thrown.getCause() instanceof StackOverflowError, thrown.getCause().toString());
        assertEquals(1, FakeExits.calls);
        assertEquals(before + 1, recordedOverflows());
        assertSame(lock, LostExits.OVERFLOWED[before & ExitOverflowGuard.OVERFLOWED_MASK]);
        LostExits.settleQuietly();
        FakeExits.calls = 0;
        FakeExits.failing = 0;
        method(load(true), "failingBodyShape").invoke(null, new Object(), false);
        assertEquals(1, FakeExits.calls, "control: the normal exit, once");
    }

    @Test
    void anExitThatDoesNotOverflowIsUntouched() throws Throwable {
        int before = recordedOverflows();
        method(load(true), "plainExit").invoke(null, new Object());
        assertEquals(1, FakeExits.calls);
        assertEquals(before, recordedOverflows());
    }

    @Test
    void theGuardedClassVerifies() {
        assertEquals("", BytesVerifier.of(getClass().getClassLoader()).verify(bytes(true)));
    }

    private static int recordedOverflows() {
        synchronized (LostExits.LOCK) {
            return LostExits.overflowedExits;
        }
    }

    private static Method method(Class<?> c, String name) {
        for (Method m : c.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new AssertionError(name);
    }

    private static Class<?> load(boolean guard) {
        byte[] bytes = bytes(guard);
        ClassLoader loader = new ClassLoader(ExitOverflowGuardTest.class.getClassLoader()) {
            {
                ExitOverflowGuard.prepare(this);
            }

            @Override
            protected Class<?> findClass(String name) throws ClassNotFoundException {
                if (!name.equals("GuardedExits")) {
                    throw new ClassNotFoundException(name);
                }
                return defineClass(name, bytes, 0, bytes.length);
            }
        };
        try {
            return Class.forName("GuardedExits", true, loader);
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
    }

    /** The three shapes, as the rewriter leaves them before the guard (the exit calls go to {@link FakeExits}). */
    static byte[] bytes(boolean guard) {
        ClassNode node = new ClassNode();
        node.visit(Opcodes.V17, Opcodes.ACC_PUBLIC, "GuardedExits", null, "java/lang/Object", null);

        MethodNode plain = method(node, "plainExit", "(Ljava/lang/Object;)V");
        plain.visitVarInsn(Opcodes.ALOAD, 0);
        plain.visitMethodInsn(Opcodes.INVOKESTATIC, FAKE, "exit", "(Ljava/lang/Object;)V", false);
        plain.visitInsn(Opcodes.RETURN);
        plain.visitMaxs(1, 1);

        // try { exit(lock); return "none"; } catch (StackOverflowError e) { return "caught"; }
        MethodNode caught = method(node, "caughtAround", "(Ljava/lang/Object;)Ljava/lang/String;");
        Label start = new Label();
        Label end = new Label();
        Label handler = new Label();
        caught.visitTryCatchBlock(start, end, handler, "java/lang/StackOverflowError");
        caught.visitLabel(start);
        caught.visitVarInsn(Opcodes.ALOAD, 0);
        caught.visitMethodInsn(Opcodes.INVOKESTATIC, FAKE, "exit", "(Ljava/lang/Object;)V", false);
        caught.visitLabel(end);
        caught.visitLdcInsn("none");
        caught.visitInsn(Opcodes.ARETURN);
        caught.visitLabel(handler);
        caught.visitInsn(Opcodes.POP);
        caught.visitLdcInsn("caught");
        caught.visitInsn(Opcodes.ARETURN);
        caught.visitMaxs(1, 1);

        // the emulated copy of a block's end: its release handler covers the normal exit, not itself
        MethodNode release = method(node, "releaseHandlerShape", "(Ljava/lang/Object;)V");
        Label body = new Label();
        Label bodyEnd = new Label();
        Label releaseHandler = new Label();
        release.visitTryCatchBlock(body, bodyEnd, releaseHandler, null);
        release.visitLabel(body);
        release.visitVarInsn(Opcodes.ALOAD, 0);
        release.visitMethodInsn(Opcodes.INVOKESTATIC, FAKE, "exit", "(Ljava/lang/Object;)V", false);
        release.visitLabel(bodyEnd);
        release.visitInsn(Opcodes.RETURN);
        release.visitLabel(releaseHandler);
        release.visitVarInsn(Opcodes.ASTORE, 1);
        release.visitVarInsn(Opcodes.ALOAD, 0);
        release.visitMethodInsn(Opcodes.INVOKESTATIC, FAKE, "exit", "(Ljava/lang/Object;)V", false);
        release.visitVarInsn(Opcodes.ALOAD, 1);
        release.visitInsn(Opcodes.ATHROW);
        release.visitMaxs(1, 2);

        // a block's emulated copy whose body may throw: its two exits (normal, release handler) share one record
        MethodNode failing = method(node, "failingBodyShape", "(Ljava/lang/Object;Z)V");
        Label fBody = new Label();
        Label fBodyEnd = new Label();
        Label fHandler = new Label();
        Label fExit = new Label();
        failing.visitTryCatchBlock(fBody, fBodyEnd, fHandler, null);
        failing.visitLabel(fBody);
        failing.visitVarInsn(Opcodes.ILOAD, 1);
        failing.visitJumpInsn(Opcodes.IFEQ, fExit);
        failing.visitTypeInsn(Opcodes.NEW, "java/lang/IllegalStateException");
        failing.visitInsn(Opcodes.DUP);
        failing.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/IllegalStateException", "<init>", "()V", false);
        failing.visitInsn(Opcodes.ATHROW);
        failing.visitLabel(fExit);
        failing.visitVarInsn(Opcodes.ALOAD, 0);
        failing.visitMethodInsn(Opcodes.INVOKESTATIC, FAKE, "exit", "(Ljava/lang/Object;)V", false);
        failing.visitLabel(fBodyEnd);
        failing.visitInsn(Opcodes.RETURN);
        failing.visitLabel(fHandler);
        failing.visitVarInsn(Opcodes.ASTORE, 2);
        failing.visitVarInsn(Opcodes.ALOAD, 0);
        failing.visitMethodInsn(Opcodes.INVOKESTATIC, FAKE, "exit", "(Ljava/lang/Object;)V", false);
        failing.visitVarInsn(Opcodes.ALOAD, 2);
        failing.visitInsn(Opcodes.ATHROW);
        failing.visitMaxs(2, 3);

        if (guard) {
            for (MethodNode m : node.methods) {
                ExitOverflowGuard.guard(m, FAKE);
            }
        }
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES);
        node.accept(writer);
        return writer.toByteArray();
    }

    private static MethodNode method(ClassNode node, String name, String descriptor) {
        MethodNode m = new MethodNode(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, name, descriptor, null, null);
        node.methods.add(m);
        return m;
    }
}
