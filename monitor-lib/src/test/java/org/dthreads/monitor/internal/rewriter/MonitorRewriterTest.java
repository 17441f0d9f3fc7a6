package org.dthreads.monitor.internal.rewriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.dthreads.monitor.internal.rewriter.fixtures.Counter;
import org.dthreads.monitor.internal.rewriter.fixtures.VectorUser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.util.CheckClassAdapter;
import org.objectweb.asm.util.Textifier;
import org.objectweb.asm.util.TraceMethodVisitor;

@Timeout(60)
class MonitorRewriterTest {

    static final String FIXTURES = "org.dthreads.monitor.internal.rewriter.fixtures.";

    static byte[] original(Class<?> type) throws IOException {
        try (InputStream in = type.getClassLoader().getResourceAsStream(type.getName().replace('.', '/') + ".class")) {
            return in.readAllBytes();
        }
    }

    static MonitorRewriter.Result rewrite(Class<?> type) throws IOException {
        return MonitorRewriter.rewrite(original(type), type.getClassLoader());
    }

    @ParameterizedTest
    @ValueSource(classes = {Counter.class, VectorUser.class})
    void rewrittenClassesPassTheAsmVerifierAndLoad(Class<?> type) throws Exception {
        MonitorRewriter.Result result = rewrite(type);
        assertTrue(result.rewritten(), () -> "skipped: " + result.skipReason());
        StringWriter problems = new StringWriter();
        CheckClassAdapter.verify(new ClassReader(result.bytes()), getClass().getClassLoader(), false, new PrintWriter(problems));
        assertEquals("", problems.toString());
        Class<?> loaded = Class.forName(type.getName(), true, new RewritingLoader()); // links: the JVM verifier runs
        assertTrue(loaded.isAnnotationPresent(org.dthreads.monitor.Rewritten.class));
    }

    @Test
    void countsWhatItRewrote() throws Exception {
        MonitorRewriter.Result result = rewrite(Counter.class);
        assertEquals(8, result.synchronizedMethods(), "increment, get, incrementStatic, longResult, ownershipInside, waitUntil, wake, recurse");
        assertEquals(8, result.synchronizedBlocks(), "incrementInBlock, getBlockValue, tryFinallyInside, nested x3, deepen, the lambda in lockIsFree");
        assertEquals(3, result.monitorCalls(), "holdsLock, wait, notifyAll");
    }

    @Test
    void synchronizedBlockMatchesTheGoldenText() throws Exception {
        ClassNode node = new ClassNode();
        new ClassReader(rewrite(Counter.class).bytes()).accept(node, ClassReader.SKIP_FRAMES);
        Textifier textifier = new Textifier();
        node.methods.stream().filter(m -> m.name.equals("incrementInBlock")).findFirst().orElseThrow()
                .accept(new TraceMethodVisitor(textifier));
        StringWriter text = new StringWriter();
        try (PrintWriter out = new PrintWriter(text)) {
            textifier.print(out);
        }
        String golden;
        try (InputStream in = getClass().getResourceAsStream("/golden/incrementInBlock.txt")) {
            golden = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertEquals(golden.strip(), text.toString().strip().replaceAll("(?m)^\\s*LINENUMBER.*\\n", ""));
    }

    @Test
    void rewrittenCodeUsesTheEmulationNotTheJvmMonitor() throws Exception {
        Object plain = new Counter();
        Object rewritten = newRewritten(Counter.class);
        assertEquals("holdsLock=true nativeMonitors=1", call(plain, "ownershipInside"), "control: javac's code");
        assertEquals("holdsLock=true nativeMonitors=0", call(rewritten, "ownershipInside"));
    }

    @Test
    void sameResultsAsTheOriginal() throws Exception {
        Object plain = new Counter();
        Object rewritten = newRewritten(Counter.class);
        for (int n : new int[] {0, 2, 5, 2000}) {
            assertEquals(call(plain, "nested", n), call(rewritten, "nested", n), "nested(" + n + ")");
        }
        assertEquals(call(plain, "recurse", 50), call(rewritten, "recurse", 50));
        Method longResult = rewritten.getClass().getMethod("longResult", long.class, double.class);
        assertEquals(42L, longResult.invoke(rewritten, 40L, 2.5));
    }

    @Test
    void exactCountsUnderContention() throws Exception {
        Object rewritten = newRewritten(Counter.class);
        Method increment = rewritten.getClass().getMethod("increment");
        Method inBlock = rewritten.getClass().getMethod("incrementInBlock");
        List<Thread> threads = new ArrayList<>();
        AtomicInteger failures = new AtomicInteger();
        for (int t = 0; t < 4; t++) {
            threads.add(new Thread(() -> {
                try {
                    for (int i = 0; i < 20_000; i++) {
                        increment.invoke(rewritten);
                        inBlock.invoke(rewritten);
                    }
                } catch (ReflectiveOperationException e) {
                    failures.incrementAndGet();
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(0, failures.get());
        assertEquals(80_000, call(rewritten, "get"));
        assertEquals(80_000, call(rewritten, "getBlockValue"));
    }

    @Test
    void waitAndNotifyAllAreEmulated() throws Exception {
        Object rewritten = newRewritten(Counter.class);
        AtomicInteger condition = new AtomicInteger();
        Method waitUntil = rewritten.getClass().getMethod("waitUntil", IntSupplier.class, long.class);
        Thread waker = new Thread(() -> {
            org.awaitility.Awaitility.await().pollDelay(java.time.Duration.ofMillis(50)).until(() -> true);
            condition.set(7);
            try {
                rewritten.getClass().getMethod("wake").invoke(rewritten);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        });
        waker.start();
        assertEquals(7, waitUntil.invoke(rewritten, (IntSupplier) condition::get, 20_000L));
        waker.join();
    }

    @Test
    @Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void anExitUnderAnotherClassThrowsInsteadOfSpinningInTheReleaseHandler() throws Exception {
        Class<?> rewritten = Class.forName(FIXTURES + "BindingMisuse", true, new RewritingLoader());
        assertEquals("IllegalMonitorStateException", rewritten.getMethod("exitUnderAnotherClass").invoke(null));
        assertEquals("IllegalMonitorStateException", rewritten.getMethod("exitUnderAnotherClassWithFinallyInside").invoke(null),
                "a finally inside the block: its merged range must not make the release handler cover itself");
        assertEquals("no exception", org.dthreads.monitor.internal.rewriter.fixtures.BindingMisuse.exitUnderAnotherClass(),
                "javac's code with the JVM's monitor: the binding does not matter");
    }

    @Test
    void aStackOverflowInsideABlockLeavesTheMonitorFree() throws Exception {
        Object rewritten = newRewritten(Counter.class);
        assertEquals(true, call(rewritten, "overflowInside"));
        assertEquals(true, call(rewritten, "lockIsFree"));
    }

    @Test
    void jdkObjectsKeepTheirNativeMonitor() throws Exception {
        Class<?> rewritten = Class.forName(VectorUser.class.getName(), true, new RewritingLoader());
        assertEquals(0, rewritten.getMethod("iterateWhileAdding", int.class).invoke(null, 200),
                "synchronized (vector) must exclude Vector.add");
        assertEquals(true, rewritten.getMethod("waitForThreadExit").invoke(null), "the JVM's notify on thread exit");
    }

    @Test
    void theDefaultSerialVersionUidOfTheOriginalIsKept() throws Exception {
        Class<?> rewritten = Class.forName(Counter.class.getName(), true, new RewritingLoader());
        long originalUid = ObjectStreamClass.lookup(Counter.class).getSerialVersionUID();
        assertEquals(originalUid, ObjectStreamClass.lookup(rewritten).getSerialVersionUID());
        // And an actual round trip: rewritten -> bytes -> plain class, and back.
        Object fromRewritten = rewritten.getConstructor().newInstance();
        rewritten.getMethod("increment").invoke(fromRewritten);
        Object asPlain = roundTrip(fromRewritten, getClass().getClassLoader());
        assertEquals(Counter.class, asPlain.getClass());
        assertEquals(1, ((Counter) asPlain).get());
        Object backToRewritten = roundTrip(asPlain, rewritten.getClassLoader());
        assertEquals(rewritten, backToRewritten.getClass());
        assertEquals(1, call(backToRewritten, "get"));
    }

    @Test
    void reflectiveWaitAndNotifyCallSitesAreRewrittenNotReported() throws Exception {
        MonitorRewriter.Result reflective = rewrite(org.dthreads.monitor.internal.rewriter.fixtures.ReflectiveMonitorCalls.class);
        assertTrue(reflective.rewritten());
        assertEquals(List.of(), reflective.unrewritableSites(), "Method.invoke and findVirtual are routed, not reported");
        assertEquals(2, reflective.monitorCalls(), "one Method.invoke, one findVirtual");
        assertEquals(List.of(), rewrite(Counter.class).unrewritableSites(), "plain monitor code is not reported");
        Class<?> rewritten = Class.forName(FIXTURES + "ReflectiveMonitorCalls", true, new RewritingLoader());
        assertEquals("waited", rewritten.getMethod("reflectiveWait").invoke(null), "the emulated monitor the block holds");
        assertEquals("notified", rewritten.getMethod("methodHandleNotifyAll").invoke(null));
    }

    @Test
    void aRewrittenClassIsNotRewrittenTwice() throws Exception {
        byte[] once = rewrite(Counter.class).bytes();
        MonitorRewriter.Result twice = MonitorRewriter.rewrite(once, getClass().getClassLoader());
        assertFalse(twice.rewritten());
        assertEquals("already rewritten", twice.skipReason());
    }

    @Test
    void aBlockNotInJavacsShapeLeavesTheClassUntouched() {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_FRAMES);
        cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC, "odd/Bare", null, "java/lang/Object", null);
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "bare", "(Ljava/lang/Object;)V", null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitInsn(Opcodes.MONITORENTER); // no handler, as some non-javac compilers emit
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitInsn(Opcodes.MONITOREXIT);
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        cw.visitEnd();
        MonitorRewriter.Result result = MonitorRewriter.rewrite(cw.toByteArray(), getClass().getClassLoader());
        assertNull(result.bytes());
        assertNotNull(result.skipReason());
        assertTrue(result.skipReason().contains("release handler"), result.skipReason());
    }

    private static Object roundTrip(Object value, ClassLoader target) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray())) {
            @Override
            protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
                return Class.forName(desc.getName(), false, target);
            }
        }) {
            return in.readObject();
        }
    }

    static Object newRewritten(Class<?> type) throws Exception {
        return Class.forName(type.getName(), true, new RewritingLoader()).getConstructor().newInstance();
    }

    static Object call(Object target, String method, Object... args) throws Exception {
        for (Method m : target.getClass().getMethods()) {
            if (m.getName().equals(method) && m.getParameterCount() == args.length) {
                return m.invoke(target, args);
            }
        }
        throw new NoSuchMethodException(method);
    }

    /** Defines the fixture classes itself, rewritten; everything else comes from the parent. */
    static final class RewritingLoader extends ClassLoader {
        RewritingLoader() {
            super(MonitorRewriterTest.class.getClassLoader());
            ExitOverflowGuard.prepare(this); // as the agent does for each loader (MonitorTransformer)
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                if (!name.startsWith(FIXTURES)) {
                    return super.loadClass(name, resolve);
                }
                Class<?> c = findLoadedClass(name);
                if (c != null) {
                    return c;
                }
                try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                    MonitorRewriter.Result result = MonitorRewriter.rewrite(in.readAllBytes(), getParent());
                    if (!result.rewritten()) {
                        throw new ClassNotFoundException(name + " was not rewritten: " + result.skipReason());
                    }
                    return defineClass(name, result.bytes(), 0, result.bytes().length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
        }
    }
}
