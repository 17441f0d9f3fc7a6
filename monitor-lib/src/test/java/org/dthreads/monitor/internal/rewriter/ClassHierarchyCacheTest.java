package org.dthreads.monitor.internal.rewriter;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The super-types a rewrite reads through a loader's resources are kept per loader ({@link ClassHierarchy}): a
 * second class with the same application super-type reads nothing again, another loader reads for itself, and
 * the kept types never keep their loader alive.
 */
class ClassHierarchyCacheTest {

    /** An application super-type (not {@code java/}): read through the loader's resources. */
    static class Base {}

    /** A synchronized method without {@code serialVersionUID}: the rewrite walks its super-types. */
    static class Sub extends Base {
        synchronized void m() {}
    }

    static class OtherSub extends Base {
        synchronized void m() {}
    }

    /** Counts the class files read through it; finds everything through the test's own loader. */
    static final class CountingLoader extends ClassLoader {
        final AtomicInteger classReads = new AtomicInteger();

        CountingLoader() {
            super(ClassHierarchyCacheTest.class.getClassLoader());
        }

        @Override
        public InputStream getResourceAsStream(String name) {
            if (name.endsWith(".class")) {
                classReads.incrementAndGet();
            }
            return super.getResourceAsStream(name);
        }
    }

    private static byte[] classFile(Class<?> type) throws IOException {
        String name = type.getName();
        try (InputStream in = ClassHierarchyCacheTest.class.getClassLoader()
                .getResourceAsStream(name.replace('.', '/') + ".class")) {
            return in.readAllBytes();
        }
    }

    @Test
    void aSuperTypeIsReadOncePerLoader() throws IOException {
        CountingLoader loader = new CountingLoader();
        MonitorRewriter.Result first = MonitorRewriter.rewrite(classFile(Sub.class), loader);
        assertTrue(first.rewritten(), first.skipReason());
        int afterFirst = loader.classReads.get();
        assertTrue(afterFirst > 0, "the rewrite read no super-type: the test tests nothing");

        MonitorRewriter.Result again = MonitorRewriter.rewrite(classFile(Sub.class), loader);
        MonitorRewriter.Result sibling = MonitorRewriter.rewrite(classFile(OtherSub.class), loader);
        assertEquals(afterFirst, loader.classReads.get(), "Base was read again through the same loader");
        assertArrayEquals(first.bytes(), again.bytes());
        assertTrue(sibling.rewritten(), sibling.skipReason());

        CountingLoader other = new CountingLoader();
        MonitorRewriter.Result elsewhere = MonitorRewriter.rewrite(classFile(Sub.class), other);
        // Base again (JDK types, read once per JVM, are not asked again)
        assertTrue(other.classReads.get() > 0, "another loader must read its own class files");
        assertArrayEquals(first.bytes(), elsewhere.bytes());
    }

    @Test
    void theKeptTypesDoNotKeepTheLoaderAlive() throws IOException {
        WeakReference<CountingLoader> loader = rewriteThroughAFreshLoader();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            System.gc();
            return loader.get() == null;
        });
    }

    private static WeakReference<CountingLoader> rewriteThroughAFreshLoader() throws IOException {
        CountingLoader loader = new CountingLoader();
        assertTrue(MonitorRewriter.rewrite(classFile(Sub.class), loader).rewritten());
        assertTrue(loader.classReads.get() > 0);
        return new WeakReference<>(loader);
    }
}
