package org.dthreads.monitor.internal.rewriter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.dthreads.monitor.internal.rewriter.fixtures.Account;
import org.dthreads.monitor.internal.rewriter.fixtures.Counter;
import org.dthreads.monitor.internal.rewriter.fixtures.SavingsAccount;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rewrite cache ({@link RewriteCache}): a start after the first reads what the first rewrote, byte for byte; a
 * changed input, rewriter build, super-type or entry is a miss, never a stale class.
 */
class RewriteCacheTest {

    @TempDir
    Path dir;

    private static RewriteCache open(Path dir, String build) {
        RewriteCache cache = RewriteCache.open(dir, build);
        assertNotNull(cache);
        return cache;
    }

    private static void assertSameResult(MonitorRewriter.Result expected, MonitorRewriter.Result actual) {
        assertTrue(actual.rewritten(), () -> "skipped: " + actual.skipReason());
        assertArrayEquals(expected.bytes(), actual.bytes());
        assertEquals(expected.synchronizedMethods(), actual.synchronizedMethods());
        assertEquals(expected.synchronizedBlocks(), actual.synchronizedBlocks());
        assertEquals(expected.monitorCalls(), actual.monitorCalls());
        assertEquals(expected.unrewritableSites(), actual.unrewritableSites());
    }

    private static List<Path> entries(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().startsWith(".")).toList();
        }
    }

    @Test
    void aSecondStartReadsWhatTheFirstRewrote() throws Exception {
        byte[] counter = MonitorRewriterTest.original(Counter.class);
        MonitorRewriter.Result direct = MonitorRewriter.rewrite(counter, Counter.class.getClassLoader());

        RewriteCache first = open(dir, "build-1");
        assertSameResult(direct, first.rewrite(counter, Counter.class.getClassLoader()));
        assertEquals(1, first.misses.get());
        assertEquals(1, first.stored.get());

        RewriteCache second = open(dir, "build-1"); // the next JVM
        assertSameResult(direct, second.rewrite(counter, Counter.class.getClassLoader()));
        assertEquals(1, second.hits.get());
        assertEquals(0, second.misses.get());
        assertEquals(1, entries(dir).size());
    }

    @Test
    void anotherBuildOfTheRewriterDoesNotReadTheEntries() throws Exception {
        byte[] counter = MonitorRewriterTest.original(Counter.class);
        open(dir, "build-1").rewrite(counter, Counter.class.getClassLoader());
        RewriteCache upgraded = open(dir, "build-2");
        upgraded.rewrite(counter, Counter.class.getClassLoader());
        assertEquals(0, upgraded.hits.get());
        assertEquals(1, upgraded.misses.get());
    }

    @Test
    void aChangedSuperTypeIsAMiss() throws Exception {
        byte[] savings = MonitorRewriterTest.original(SavingsAccount.class);
        ClassLoader normal = SavingsAccount.class.getClassLoader();
        RewriteCache first = open(dir, "build-1");
        MonitorRewriter.Result withAccount = first.rewrite(savings, normal);
        assertTrue(withAccount.rewritten());

        // the same class bytes, loaded where its super-class reads differently: another Account (here Counter's
        // bytes: no Serializable, another super-class), as a changed dependency jar would give
        byte[] otherAccount = MonitorRewriterTest.original(Counter.class);
        ClassLoader withoutAccount = new ClassLoader(null) {
            @Override
            public InputStream getResourceAsStream(String name) {
                return name.equals(Account.class.getName().replace('.', '/') + ".class")
                        ? new java.io.ByteArrayInputStream(otherAccount) : normal.getResourceAsStream(name);
            }
        };
        RewriteCache second = open(dir, "build-1");
        MonitorRewriter.Result elsewhere = second.rewrite(savings, withoutAccount);
        assertEquals(0, second.hits.get(), "what the rewrite read about Account no longer holds");
        MonitorRewriter.Result direct = MonitorRewriter.rewrite(savings, withoutAccount);
        assertEquals(direct.skipReason(), elsewhere.skipReason());
        if (direct.rewritten()) {
            assertSameResult(direct, elsewhere);
        }

        // one entry per class bytes: the last rewrite's; back where Account reads as before, a miss again, then hits
        RewriteCache third = open(dir, "build-1");
        assertSameResult(withAccount, third.rewrite(savings, normal));
        assertEquals(0, third.hits.get());
        RewriteCache fourth = open(dir, "build-1");
        assertSameResult(withAccount, fourth.rewrite(savings, normal));
        assertEquals(1, fourth.hits.get());
    }

    @Test
    void aCorruptEntryIsRewrittenAndReplaced() throws Exception {
        byte[] counter = MonitorRewriterTest.original(Counter.class);
        MonitorRewriter.Result direct = MonitorRewriter.rewrite(counter, Counter.class.getClassLoader());
        open(dir, "build-1").rewrite(counter, Counter.class.getClassLoader());
        Path entry = entries(dir).get(0);
        byte[] data = Files.readAllBytes(entry);
        data[data.length / 2] ^= 0x40;
        Files.write(entry, data);

        RewriteCache second = open(dir, "build-1");
        assertSameResult(direct, second.rewrite(counter, Counter.class.getClassLoader()));
        assertEquals(0, second.hits.get());
        assertEquals(1, second.stored.get(), "replaced");

        Files.write(entry, new byte[] {1, 2, 3}); // truncated
        RewriteCache third = open(dir, "build-1");
        assertSameResult(direct, third.rewrite(counter, Counter.class.getClassLoader()));
        assertEquals(0, third.hits.get());

        RewriteCache fourth = open(dir, "build-1");
        assertSameResult(direct, fourth.rewrite(counter, Counter.class.getClassLoader()));
        assertEquals(1, fourth.hits.get());
    }

    @Test
    void aDirectoryOthersMayWriteIsNotUsed() throws Exception {
        Path shared = Files.createDirectory(dir.resolve("shared"));
        if (Files.getFileAttributeView(shared, java.nio.file.attribute.PosixFileAttributeView.class) == null) {
            return; // no POSIX permissions to check here
        }
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertNull(RewriteCache.open(shared, "build-1"));
        Path created = dir.resolve("fresh");
        open(created, "build-1");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(created)));
    }

    @Test
    void aDirectoryWithOtherContentsIsNotUsedNorSwept() throws Exception {
        Path home = Files.createDirectory(dir.resolve("home"));
        Path old = Files.createDirectory(home.resolve("0123456789abcdef"));
        Files.setLastModifiedTime(old, java.nio.file.attribute.FileTime.fromMillis(0));
        Files.writeString(home.resolve("notes.txt"), "mine");
        assertNull(RewriteCache.open(home, "build-1"), "not empty and not a cache");
        assertTrue(Files.exists(old));

        Path cache = dir.resolve("cache");
        open(cache, "build-1");
        assertTrue(Files.exists(cache.resolve(RewriteCache.ROOT_MARKER)));
        Path stale = Files.createDirectory(cache.resolve("fedcba9876543210"));
        Files.setLastModifiedTime(stale, java.nio.file.attribute.FileTime.fromMillis(0));
        Path other = Files.createDirectory(cache.resolve("not-a-build"));
        Files.setLastModifiedTime(other, java.nio.file.attribute.FileTime.fromMillis(0));
        open(cache, "build-1"); // the next start sweeps builds unused for 30 days, in the background
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> !Files.exists(stale));
        assertTrue(Files.exists(other), "only build directories are swept");
    }

    @Test
    void withoutABuildIdTheCacheIsOff() {
        assertNull(RewriteCache.open(dir, null));
        assertNotNull(RewriteCache.buildId(), "this build is stamped (build.properties, filtered)");
    }

    @Test
    void theTransformerUsesTheCacheTheSystemPropertyNames() throws Exception {
        byte[] counter = MonitorRewriterTest.original(Counter.class);
        String name = Counter.class.getName().replace('.', '/');
        System.setProperty(RewriteCache.PROPERTY, dir.toString());
        try {
            MonitorTransformer first = new MonitorTransformer(n -> true);
            byte[] once = first.transform(Counter.class.getClassLoader(), name, null, null, counter);
            MonitorTransformer second = new MonitorTransformer(n -> true);
            byte[] again = second.transform(Counter.class.getClassLoader(), name, null, null, counter);
            assertArrayEquals(once, again);
            assertTrue(second.summary().contains("1 hits"), second.summary());
        } finally {
            System.clearProperty(RewriteCache.PROPERTY);
        }
    }
}
