package org.dthreads.agent.internal;

import java.io.BufferedOutputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * The classes that must be on the bootstrap class path: the runtime that rewritten code, the JDK's
 * RMI classes and every class loader call (dthreads-api, the monitor runtime, the JRMP hooks, the hook
 * that patched CORBA skeletons call for remote monitor requests). They
 * are copied out of the agent jar into a temporary jar at start, like the OpenTelemetry agent's
 * bootstrap shim; nothing of the agent's own dependencies (ASM) goes there.
 */
public final class BootJar {

    /** Entry-name prefixes of the bootstrap classes. */
    static final List<String> BOOT_PREFIXES = List.of("org/dthreads/internal/", "org/dthreads/monitor/",
            "org/dthreads/rmi/internal/RmiClientHook", "org/dthreads/rmi/internal/TwinSupport",
            "org/dthreads/rmi/internal/Twins", "org/dthreads/rmi/internal/MonitorPort",
            "org/dthreads/rmi/internal/SkeletonTwins", "org/dthreads/rmi/internal/SiteHellos",
            "org/dthreads/rmi/internal/JrmpMonitorTransport", "org/dthreads/rmi/internal/RemoteRefCarrier");

    /** Prefixes excluded from the above (they need ASM). */
    static final List<String> NOT_BOOT = List.of("org/dthreads/monitor/internal/rewriter/");

    private BootJar() {}

    static boolean isBootClass(String entry) {
        if (!entry.endsWith(".class")) {
            return false;
        }
        if (entry.startsWith("org/dthreads/") && entry.indexOf('/', "org/dthreads/".length()) < 0) {
            return true; // the public API package itself
        }
        for (String not : NOT_BOOT) {
            if (entry.startsWith(not)) {
                return false;
            }
        }
        for (String p : BOOT_PREFIXES) {
            if (entry.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code jar} is a full agent jar (carries the runtime), not a thin copy of the agent classes. */
    public static boolean carriesRuntime(Path jar) {
        try (JarFile file = new JarFile(jar.toFile())) {
            return file.getEntry("org/dthreads/DThreads.class") != null
                    && file.getEntry("org/dthreads/monitor/Monitors.class") != null;
        } catch (IOException e) {
            return false;
        }
    }

    /** Writes the bootstrap classes of {@code agentJar} to a new temporary jar (deleted on exit). */
    public static Path extract(Path agentJar) throws IOException {
        Path[] created = new Path[1];
        OutputStream file = createTemp(Path.of(System.getProperty("java.io.tmpdir")), created);
        Path boot = created[0];
        boot.toFile().deleteOnExit();
        try (JarFile in = new JarFile(agentJar.toFile());
                // buffered: ZipOutputStream writes each header field on its own, and unbuffered each was a system
                // call through a file channel (64% of this method's CPU, issue 16)
                JarOutputStream out = new JarOutputStream(new BufferedOutputStream(file, 1 << 16))) {
            out.setLevel(java.util.zip.Deflater.NO_COMPRESSION); // a temporary file read once: compressing it costs CPU at every start
            JarEntry sourceManifest = in.getJarEntry(JarFile.MANIFEST_NAME);
            out.putNextEntry(sourceManifest != null ? timedLike(sourceManifest) : new JarEntry(JarFile.MANIFEST_NAME));
            new Manifest().write(out); // an empty manifest, as JarOutputStream(out, new Manifest()) wrote
            out.closeEntry();
            Enumeration<JarEntry> entries = in.entries();
            while (entries.hasMoreElements()) {
                JarEntry e = entries.nextElement();
                if (isBootClass(e.getName())) {
                    out.putNextEntry(timedLike(e));
                    try (InputStream data = in.getInputStream(e)) {
                        data.transferTo(out);
                    }
                    out.closeEntry();
                }
            }
        }
        return boot;
    }

    /**
     * A new entry named and timed as {@code source}, to be deflated. Copied rather than made by name: an entry without
     * a time gets the current time, which {@code ZipOutputStream} converts to the DOS format through
     * {@code java.time} (about 25 classes and 0.13 MB of metaspace at every start, issue 16); the copy carries the
     * source's DOS time as it is. Sizes and CRC are left to the writer.
     */
    static JarEntry timedLike(JarEntry source) {
        JarEntry e = new JarEntry(source);
        e.setMethod(java.util.zip.ZipEntry.DEFLATED);
        e.setCompressedSize(-1); // the writer's own, at closeEntry (DEFLATED with an unknown size: a data descriptor)
        return e;
    }

    /**
     * A new file {@code dthreads-boot-<random>.jar} in {@code dir}, open for writing; its path in {@code created[0]}.
     * What {@code Files.createTempFile} does on a POSIX file system (a name with 64 random bits, created with
     * {@code CREATE_NEW}, i.e. {@code O_CREAT|O_EXCL}, which fails on any existing name, a planted symbolic link
     * included; owner read and write only, from the creating call on; another name on a collision), with the
     * random bits read from {@code /dev/urandom} instead of a {@code SecureRandom}, whose providers' set-up was
     * most of this method's cost and 0.6 MB of metaspace (issue 16); the file is then written through the
     * channel that created it, not opened again by name. Elsewhere (no POSIX permissions, no
     * {@code /dev/urandom}) {@code Files.createTempFile} itself.
     */
    static OutputStream createTemp(Path dir, Path[] created) throws IOException {
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            for (int attempt = 0; attempt < 100; attempt++) {
                byte[] r = urandom(8);
                if (r == null) {
                    break;
                }
                long bits = 0;
                for (byte b : r) {
                    bits = bits << 8 | (b & 0xff);
                }
                Path p = dir.resolve("dthreads-boot-" + Long.toUnsignedString(bits) + ".jar");
                try {
                    OutputStream out = Channels.newOutputStream(Files.newByteChannel(p,
                            EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                            PosixFilePermissions.asFileAttribute(
                                    EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE))));
                    created[0] = p;
                    return out;
                } catch (FileAlreadyExistsException taken) {
                    // another name
                }
            }
        }
        created[0] = Files.createTempFile(dir, "dthreads-boot-", ".jar");
        return Files.newOutputStream(created[0]);
    }

    /** {@code n} bytes of {@code /dev/urandom}, or null where it cannot be read. */
    private static byte[] urandom(int n) {
        byte[] b = new byte[n];
        try (InputStream in = new FileInputStream("/dev/urandom")) {
            int got = 0;
            while (got < n) {
                int r = in.read(b, got, n - got);
                if (r < 0) {
                    return null;
                }
                got += r;
            }
            return b;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
