package org.dthreads.monitor.internal.rewriter;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.dthreads.internal.RateLimitedLog;

/**
 * Rewritten classes kept on disk between runs ({@code -Ddthreads.cache=<directory>}, off by default): a start after
 * the first reads the result of each class that needs the full rewriter instead of rewriting it again (issue 16,
 * agent start-up). Classes that need only the marker are not cached: their scan is cheaper than a file read.
 *
 * <h2>What makes a hit</h2>
 * A rewrite's output depends on the class's bytes, on this build of the rewriter and its settings, and on what the
 * rewrite read about other types through the defining loader ({@link ClassHierarchy#learnt()}: super-types,
 * declared methods, types that could not be read). The file name is a CRC32C of the settings and the input with
 * the input's length, and the entry keeps a CRC32 of the input (another polynomial) and those answers; a hit
 * requires the input to match both checksums and the loader to give the same answers now (read through the same
 * shared per-loader caches as a rewrite), so a changed super-class, an added or removed method or a jar that
 * appeared on the class path is a miss, not a stale class. Checksums, not SHA-256 or a whole comparison: both run
 * interpreted during start-up and cost more than the rewrite they saved (measured); the CRCs are intrinsics of the
 * interpreter too. Only rewritten results are kept.
 *
 * <h2>Entry</h2>
 * {@code MAGIC}, the input's CRC32, the counts and unrewritable sites of the {@link MonitorRewriter.Result}, the learnt
 * answers, the output bytes, then a CRC32C of everything before it: a truncated or corrupt entry is a miss and is
 * replaced.
 * Layout: {@code <directory>/<build>/<2 hex>/<14 hex>}; {@code <build>} names this build of monitor-lib (from
 * {@code build.properties}, stamped at build time), so an upgraded agent never reads an older one's entries;
 * build directories unused for {@link #RETENTION_DAYS} days are deleted in the background.
 *
 * <h2>Threads and processes</h2>
 * Thread-safe: the transformer calls it from any class-loading thread; the only shared mutable state is the
 * {@link #disabled} flag (volatile, set once) and counters (atomic). JVMs may share a directory: an entry is
 * written to a temporary file in its final directory and moved into place atomically, so a reader sees a whole
 * entry or none; two JVMs storing one key store the same bytes.
 *
 * <h2>Trust and failures</h2>
 * The directory must belong to the JVM's user and be writable by nobody else (created {@code rwx------}), and be
 * empty or a cache already (it holds the file {@link #ROOT_MARKER}): a directory with other contents is refused, so
 * a mistyped path never has its subdirectories swept. Otherwise the cache is off, said once. Never throws: an I/O error is a miss (said once per kind) and the class
 * is rewritten as without a cache; a directory that cannot be written turns the cache off.
 */
final class RewriteCache {
    static final String PROPERTY = "dthreads.cache";
    static final int RETENTION_DAYS = 30;
    private static final String MAGIC = "dthreads-rewrite-cache-3";
    /** The file that makes a directory a rewrite cache (see "Trust and failures"). */
    static final String ROOT_MARKER = ".dthreads-rewrite-cache";
    private static final RateLimitedLog LOG = RateLimitedLog.forClass(RewriteCache.class);
    private static final HexFormat HEX = HexFormat.of();

    private final Path buildDirectory;
    /** Hashed into every key: this build of the rewriter and the settings its output depends on. */
    private final byte[] salt;
    private volatile boolean disabled;

    final AtomicInteger hits = new AtomicInteger();
    final AtomicInteger misses = new AtomicInteger();
    final AtomicInteger stored = new AtomicInteger();

    private RewriteCache(Path buildDirectory, byte[] salt) {
        this.buildDirectory = buildDirectory;
        this.salt = salt;
    }

    /** The cache {@code -Ddthreads.cache} names, or null if it is unset or cannot be used (said once). */
    static RewriteCache fromSystemProperty() {
        String dir;
        try {
            dir = System.getProperty(PROPERTY);
        } catch (SecurityException e) {
            return null;
        }
        return dir == null || dir.isBlank() ? null : open(Path.of(dir), buildId());
    }

    /** A cache in {@code directory} for the rewriter build {@code buildId}, or null (said once) if unusable. */
    static RewriteCache open(Path directory, String buildId) {
        if (buildId == null) {
            LOG.warn("cache-no-build", "dthreads: -D" + PROPERTY + " ignored: this build of dthreads has no build id");
            return null;
        }
        try {
            Path root = directory.toAbsolutePath();
            ensurePrivateDirectory(root);
            claim(root);
            String build = HEX.formatHex(sha256(buildId.getBytes(StandardCharsets.UTF_8))).substring(0, 16);
            Path buildDirectory = root.resolve(build);
            ensurePrivateDirectory(buildDirectory);
            Files.setLastModifiedTime(buildDirectory, FileTime.fromMillis(System.currentTimeMillis()));
            String settings = buildId + "|slots=" + !"false".equalsIgnoreCase(System.getProperty("dthreads.monitor.slots"))
                    + "|java=" + System.getProperty("java.specification.version");
            RewriteCache cache = new RewriteCache(buildDirectory, settings.getBytes(StandardCharsets.UTF_8));
            cache.deleteOldBuildsInBackground(root, build);
            return cache;
        } catch (IOException | RuntimeException e) {
            LOG.warn("cache-unusable", "dthreads: -D" + PROPERTY + "=" + directory + " is not used: " + e);
            return null;
        }
    }

    /** The result for {@code classBytes}: from the cache if it holds a valid one, else rewritten (and stored). */
    MonitorRewriter.Result rewrite(byte[] classBytes, ClassLoader loader) {
        if (disabled) {
            return MonitorRewriter.rewrite(classBytes, loader);
        }
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(salt);
        crc.update(classBytes);
        String key = HEX.toHexDigits((int) crc.getValue()) + HEX.toHexDigits(classBytes.length);
        Path entry = buildDirectory.resolve(key.substring(0, 2)).resolve(key.substring(2));
        MonitorRewriter.Result cached = read(entry, classBytes, loader);
        if (cached != null) {
            hits.incrementAndGet();
            return cached;
        }
        misses.incrementAndGet();
        ClassHierarchy hierarchy = new ClassHierarchy(loader, true);
        MonitorRewriter.Result result = MonitorRewriter.rewrite(classBytes, MethodSelection.of(classBytes), true, null,
                hierarchy);
        if (result.rewritten()) {
            write(entry, classBytes, result, hierarchy.learnt());
        }
        return result;
    }

    // ---- entries ----

    private MonitorRewriter.Result read(Path entry, byte[] input, ClassLoader loader) {
        byte[] data;
        try {
            data = readFile(entry.toFile());
        } catch (java.io.FileNotFoundException e) {
            if (!entry.toFile().exists()) {
                return null; // not cached (yet)
            }
            LOG.warn("cache-read", "dthreads: a cached class could not be read (" + e + "); it is rewritten instead");
            return null;
        } catch (IOException | RuntimeException e) {
            LOG.warn("cache-read", "dthreads: a cached class could not be read (" + e + "); it is rewritten instead");
            return null;
        }
        if (data.length < 8 || crc32c(data, data.length - 8) != readLong(data, data.length - 8)) {
            return null; // truncated or corrupt: rewritten, and the entry replaced
        }
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(data, 0, data.length - 8))) {
            if (!MAGIC.equals(in.readUTF())) {
                return null;
            }
            if (in.readInt() != crc32(input)) {
                return null; // another class with the same file name: a miss, and the entry replaced
            }
            int methods = in.readInt();
            int blocks = in.readInt();
            int calls = in.readInt();
            List<String> unrewritable = new ArrayList<>();
            for (int i = in.readInt(); i > 0; i--) {
                unrewritable.add(in.readUTF());
            }
            int learnt = in.readInt();
            if (learnt > 0) {
                ClassHierarchy now = new ClassHierarchy(loader);
                for (int i = 0; i < learnt; i++) {
                    String question = in.readUTF();
                    if (!readLong(in).equals(now.answer(question))) {
                        return null; // a type it read has changed: rewrite
                    }
                }
            }
            byte[] bytes = new byte[in.readInt()];
            in.readFully(bytes);
            return new MonitorRewriter.Result(bytes, null, methods, blocks, calls, List.copyOf(unrewritable));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The whole file, through {@code java.io} rather than {@code Files.readAllBytes}: a start-up runs this interpreted,
     * and the NIO channel set-up around the same two system calls cost about as much as the rest of a hit's check
     * (issue 16).
     */
    private static byte[] readFile(java.io.File file) throws IOException {
        try (java.io.RandomAccessFile in = new java.io.RandomAccessFile(file, "r")) {
            long length = in.length();
            if (length > Integer.MAX_VALUE - 16) {
                throw new IOException("cache entry too large: " + length);
            }
            byte[] data = new byte[(int) length];
            in.readFully(data); // entries are replaced whole, never written in place; the checksum covers the rest
            return data;
        }
    }

    private void write(Path entry, byte[] input, MonitorRewriter.Result result, Map<String, String> learnt) {
        try {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream(result.bytes().length + 256);
            try (DataOutputStream out = new DataOutputStream(buffer)) {
                out.writeUTF(MAGIC);
                out.writeInt(crc32(input));
                out.writeInt(result.synchronizedMethods());
                out.writeInt(result.synchronizedBlocks());
                out.writeInt(result.monitorCalls());
                out.writeInt(result.unrewritableSites().size());
                for (String site : result.unrewritableSites()) {
                    out.writeUTF(site);
                }
                out.writeInt(learnt.size());
                for (Map.Entry<String, String> e : new TreeMap<>(learnt).entrySet()) {
                    out.writeUTF(e.getKey());
                    writeLong(out, e.getValue());
                }
                out.writeInt(result.bytes().length);
                out.write(result.bytes());
            }
            byte[] body = buffer.toByteArray();
            byte[] data = Arrays.copyOf(body, body.length + 8);
            long check = crc32c(body, body.length);
            for (int i = 0; i < 8; i++) {
                data[body.length + i] = (byte) (check >>> (56 - 8 * i));
            }
            Path directory = entry.getParent();
            Files.createDirectories(directory);
            Path temporary = Files.createTempFile(directory, "tmp-", ".part");
            try {
                Files.write(temporary, data);
                Files.move(temporary, entry, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                stored.incrementAndGet();
            } finally {
                Files.deleteIfExists(temporary);
            }
        } catch (AtomicMoveNotSupportedException e) {
            disabled = true;
            LOG.warn("cache-no-atomic-move", "dthreads: -D" + PROPERTY + " turned off: its file system cannot"
                    + " replace a file atomically, so JVMs sharing it could read half an entry");
        } catch (IOException | RuntimeException e) {
            disabled = true;
            LOG.warn("cache-write", "dthreads: -D" + PROPERTY + " turned off: a rewritten class could not be stored ("
                    + e + ")");
        }
    }

    /** A UTF string of any length (writeUTF stops at 64 KB; a class may declare many methods). */
    private static void writeLong(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readLong(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available()) {
            throw new IOException("bad length " + n);
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    // ---- the directory ----

    private static void ensurePrivateDirectory(Path dir) throws IOException {
        PosixFileAttributeView posix = Files.getFileAttributeView(dir.getParent() == null ? dir : dir.getParent(),
                PosixFileAttributeView.class);
        if (!Files.isDirectory(dir)) {
            if (posix != null) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } else {
                Files.createDirectories(dir);
            }
        }
        PosixFileAttributeView view = Files.getFileAttributeView(dir, PosixFileAttributeView.class);
        if (view != null) {
            var attributes = view.readAttributes();
            String me = System.getProperty("user.name");
            if (me != null && !attributes.owner().getName().equals(me)) {
                throw new IOException(dir + " belongs to " + attributes.owner().getName() + ", not " + me);
            }
            Set<PosixFilePermission> permissions = attributes.permissions();
            if (permissions.contains(PosixFilePermission.GROUP_WRITE) || permissions.contains(PosixFilePermission.OTHERS_WRITE)) {
                throw new IOException(dir + " is writable by other users (" + PosixFilePermissions.toString(permissions) + ")");
            }
        }
    }

    /** Marks an empty directory as a cache; refuses one with other contents. */
    private static void claim(Path root) throws IOException {
        Path marker = root.resolve(ROOT_MARKER);
        if (Files.exists(marker)) {
            return;
        }
        try (DirectoryStream<Path> contents = Files.newDirectoryStream(root)) {
            if (contents.iterator().hasNext()) {
                throw new IOException(root + " is neither empty nor a dthreads rewrite cache (no " + ROOT_MARKER + ")");
            }
        }
        try {
            Files.createFile(marker);
        } catch (java.nio.file.FileAlreadyExistsException raced) {
            // another JVM claimed it first
        }
    }

    private void deleteOldBuildsInBackground(Path root, String current) {
        Thread sweeper = new Thread(() -> {
            long cutoff = System.currentTimeMillis() - TimeUnit.DAYS.toMillis(RETENTION_DAYS);
            try (DirectoryStream<Path> builds = Files.newDirectoryStream(root)) {
                for (Path build : builds) {
                    String name = build.getFileName().toString();
                    if (name.matches("[0-9a-f]{16}") && !name.equals(current) && Files.isDirectory(build)
                            && Files.getLastModifiedTime(build).toMillis() < cutoff) {
                        deleteTree(build);
                    }
                }
            } catch (IOException | RuntimeException e) {
                // best effort: an old build directory stays until the next start
            }
        }, "dthreads-cache-sweeper");
        sweeper.setDaemon(true);
        sweeper.start();
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) paths.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    // ---- hashing and the build id ----

    /** This build of monitor-lib, stamped into {@code build.properties} at build time; null if not stamped. */
    static String buildId() {
        try (InputStream in = RewriteCache.class.getResourceAsStream("build.properties")) {
            if (in == null) {
                return null;
            }
            Properties p = new Properties();
            p.load(in);
            String id = p.getProperty("build.id");
            return id == null || id.contains("${") ? null : id;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static int crc32(byte[] data) {
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(data);
        return (int) crc.getValue();
    }

    private static long crc32c(byte[] data, int length) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(data, 0, length);
        return crc.getValue();
    }

    private static long readLong(byte[] data, int offset) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = v << 8 | (data[offset + i] & 0xFF);
        }
        return v;
    }

    private static byte[] sha256(byte[]... parts) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (byte[] part : parts) {
                digest.update(part);
                digest.update((byte) 0);
            }
            return digest.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e); // every JDK has SHA-256
        }
    }

    @Override
    public String toString() {
        return "rewrite cache " + buildDirectory + ": " + hits + " hits, " + misses + " misses, " + stored + " stored";
    }
}
