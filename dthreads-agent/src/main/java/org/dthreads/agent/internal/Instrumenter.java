package org.dthreads.agent.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.dthreads.monitor.internal.rewriter.MonitorRewriter;
import org.dthreads.rmi.internal.RmiTransformer;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;

/**
 * The offline (build-time) mode of the agent: rewrites the classes of a jar or a class directory
 * ahead of time, as the agent would at load time. Monitor operations of every class in
 * {@link AgentScope} go through {@link MonitorRewriter}; remote interfaces get their JRMP twins and
 * legacy {@code *_Stub} classes their hook calls through {@link RmiTransformer}. The JDK's own
 * {@code RemoteObjectInvocationHandler} is not in the input and cannot be patched offline: JRMP
 * proxy calls of an instrumented client carry the caller's class only with the agent attached.
 *
 * <p>The output is written next to the target and moved into place when complete; on any failure
 * nothing is left behind. Signatures of signed jars are removed (the classes changed). A class that
 * cannot be rewritten is copied unchanged and reported, never fatal.
 */
public final class Instrumenter {

    /** Bad input or output, or an I/O failure: the message is for the user. */
    public static final class InstrumentException extends Exception {
        private final boolean usage;

        InstrumentException(String message, boolean usage, Throwable cause) {
            super(message, cause);
            this.usage = usage;
        }

        /** Whether the user's arguments were wrong (as opposed to a failure while instrumenting). */
        public boolean isUsageError() {
            return usage;
        }
    }

    /** What one run did. */
    public static final class Report {
        int classesSeen;
        int monitorRewritten;
        int monitorSites;
        int alreadyRewritten;
        int twinned;
        int stubsPatched;
        int resources;
        int signatureFilesRemoved;
        final Map<String, Integer> skipped = new TreeMap<>();

        public int classesSeen() { return classesSeen; }
        public int monitorRewritten() { return monitorRewritten; }
        public int twinned() { return twinned; }
        public int stubsPatched() { return stubsPatched; }
        public int resources() { return resources; }
        public int signatureFilesRemoved() { return signatureFilesRemoved; }
        public Map<String, Integer> skipped() { return skipped; }

        void skip(String reason) {
            skipped.merge(reason, 1, Integer::sum);
        }

        @Override
        public String toString() {
            StringBuilder s = new StringBuilder();
            s.append("classes seen: ").append(classesSeen).append('\n');
            s.append("rewritten (monitors): ").append(monitorRewritten).append(" (").append(monitorSites)
                    .append(" monitor sites)\n");
            s.append("remote interfaces twinned: ").append(twinned).append('\n');
            s.append("legacy stubs patched: ").append(stubsPatched).append('\n');
            if (alreadyRewritten > 0) {
                s.append("already rewritten (left as they are): ").append(alreadyRewritten).append('\n');
            }
            int total = skipped.values().stream().mapToInt(Integer::intValue).sum();
            s.append("skipped: ").append(total).append('\n');
            skipped.forEach((reason, n) -> s.append("  ").append(n).append(" x ").append(reason).append('\n'));
            s.append("resources copied: ").append(resources);
            if (signatureFilesRemoved > 0) {
                s.append('\n').append("signature files removed: ").append(signatureFilesRemoved);
            }
            return s.toString();
        }
    }

    private static final int PROGRESS_CLASSES = 2000;
    private static final long PROGRESS_NANOS = 5_000_000_000L;

    private final AgentScope scope;
    private final List<Path> classPath;
    private final PrintStream err;
    private final Report report = new Report();
    private long lastProgress = System.nanoTime();

    /**
     * @param scope the classes to rewrite
     * @param classPath further jars/directories where super-types of the input's classes are found
     * @param err progress, warnings
     */
    public Instrumenter(AgentScope scope, List<Path> classPath, PrintStream err) {
        this.scope = scope;
        this.classPath = List.copyOf(classPath);
        this.err = err;
    }

    /** Instruments {@code in} (a jar or a class directory) into {@code out} (same kind). */
    public Report run(Path in, Path out) throws InstrumentException {
        Path input = in.toAbsolutePath().normalize();
        Path output = out.toAbsolutePath().normalize();
        boolean jar = validate(input, output);
        Path parent = output.getParent();
        Path temp;
        try {
            Files.createDirectories(parent);
            temp = jar ? Files.createTempFile(parent, "." + output.getFileName() + ".", ".tmp")
                    : Files.createTempDirectory(parent, "." + output.getFileName() + ".");
        } catch (IOException e) {
            throw new InstrumentException("cannot write next to the output " + output + ": " + describe(e), true, e);
        }
        boolean done = false;
        try (URLClassLoader loader = hierarchyLoader(input)) {
            if (jar) {
                instrumentJar(input, temp, loader);
            } else {
                instrumentDirectory(input, temp, loader);
            }
            keepPermissions(input, temp);
            moveIntoPlace(temp, output, jar);
            done = true;
            return report;
        } catch (ZipException e) {
            throw new InstrumentException("not a readable jar: " + input + " (" + e.getMessage() + ")", true, e);
        } catch (IOException | UncheckedIOException e) {
            throw new InstrumentException("instrumenting " + input + " failed: " + describe(e), false, e);
        } finally {
            if (!done) {
                deleteRecursively(temp);
            }
        }
    }

    /** @return whether the input is a jar (else a directory) */
    private static boolean validate(Path input, Path output) throws InstrumentException {
        if (!Files.exists(input)) {
            throw new InstrumentException("input does not exist: " + input, true, null);
        }
        boolean jar = Files.isRegularFile(input);
        if (!jar && !Files.isDirectory(input)) {
            throw new InstrumentException("input is neither a jar nor a directory: " + input, true, null);
        }
        if (!Files.isReadable(input)) {
            throw new InstrumentException("input is not readable: " + input, true, null);
        }
        Path realIn;
        try {
            realIn = input.toRealPath();
        } catch (IOException e) {
            throw new InstrumentException("cannot resolve the input " + input + ": " + describe(e), true, e);
        }
        Path realOut = realOrSelf(output);
        if (realOut.equals(realIn)) {
            throw new InstrumentException("output must differ from the input: " + output, true, null);
        }
        if (!jar && realOut.startsWith(realIn)) {
            throw new InstrumentException("output must not lie inside the input directory: " + output, true, null);
        }
        if (jar) {
            if (Files.isDirectory(output)) {
                throw new InstrumentException("the input is a jar but the output is a directory: " + output, true, null);
            }
            try (ZipFile probe = new ZipFile(input.toFile())) {
                probe.size();
            } catch (IOException e) {
                throw new InstrumentException("not a readable jar: " + input + " (" + describe(e) + ")", true, e);
            }
        } else if (!Files.exists(output) && output.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".jar")) {
            throw new InstrumentException("the input is a directory, so the output is one too; not a jar: " + output
                    + " (jar the directory first, or name a directory)", true, null);
        } else if (Files.exists(output)) {
            if (!Files.isDirectory(output)) {
                throw new InstrumentException("the input is a directory but the output is a file: " + output, true, null);
            }
            try (Stream<Path> s = Files.list(output)) {
                if (s.findAny().isPresent()) {
                    throw new InstrumentException("output directory exists and is not empty: " + output, true, null);
                }
            } catch (IOException e) {
                throw new InstrumentException("cannot read the output directory " + output + ": " + describe(e), true, e);
            }
        }
        return jar;
    }

    private static Path realOrSelf(Path p) {
        // resolve the longest existing prefix, so a symbolic link to the input is recognised
        Path existing = p;
        Path rest = null;
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            Path name = existing.getFileName();
            rest = rest == null ? name : name.resolve(rest);
            existing = existing.getParent();
        }
        if (existing == null) {
            return p;
        }
        try {
            Path real = existing.toRealPath();
            return rest == null ? real : real.resolve(rest);
        } catch (IOException e) {
            return p;
        }
    }

    private URLClassLoader hierarchyLoader(Path input) throws IOException {
        List<URL> urls = new ArrayList<>();
        urls.add(input.toUri().toURL());
        for (Path p : classPath) {
            urls.add(p.toAbsolutePath().toUri().toURL());
        }
        return new URLClassLoader("dthreads-instrument", urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    }

    private void instrumentJar(Path input, Path temp, ClassLoader loader) throws IOException {
        try (JarFile jar = new JarFile(input.toFile(), false);
                ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(temp))) {
            boolean signed = false;
            List<ZipEntry> entries = new ArrayList<>();
            for (Iterator<? extends ZipEntry> it = jar.entries().asIterator(); it.hasNext();) {
                ZipEntry e = it.next();
                if (isSignatureFile(e.getName())) {
                    signed = true;
                    report.signatureFilesRemoved++;
                } else {
                    entries.add(e);
                }
            }
            if (signed) {
                err.println("dthreads instrument: WARNING: " + input.getFileName() + " is signed; its signature is"
                        + " removed (" + report.signatureFilesRemoved + " signature files and the manifest's digests)"
                        + " because the classes change. Re-sign the output if you need a signed jar.");
            }
            // the manifest first, as java.util.jar expects
            entries.sort(Comparator.comparingInt(e -> manifestRank(e.getName())));
            for (ZipEntry e : entries) {
                ZipEntry copy = new ZipEntry(e.getName());
                if (e.getTime() != -1) {
                    copy.setTime(e.getTime());
                }
                out.putNextEntry(copy);
                if (!e.isDirectory()) {
                    byte[] bytes;
                    try (InputStream data = jar.getInputStream(e)) {
                        bytes = data.readAllBytes();
                    }
                    if (e.getName().equalsIgnoreCase(JarFile.MANIFEST_NAME)) {
                        bytes = signed ? unsignedManifest(bytes) : bytes;
                        report.resources++;
                    } else if (e.getName().endsWith(".class")) {
                        bytes = instrumentClass(e.getName(), bytes, loader);
                    } else {
                        report.resources++;
                    }
                    out.write(bytes);
                }
                out.closeEntry();
            }
        }
    }

    private static int manifestRank(String name) {
        if (name.equalsIgnoreCase("META-INF/")) {
            return 0;
        }
        return name.equalsIgnoreCase(JarFile.MANIFEST_NAME) ? 1 : 2;
    }

    /** {@code META-INF/*.SF|*.RSA|*.DSA|*.EC} and {@code META-INF/SIG-*}, at the top of META-INF only. */
    static boolean isSignatureFile(String name) {
        String upper = name.toUpperCase(Locale.ROOT);
        if (!upper.startsWith("META-INF/") || upper.indexOf('/', "META-INF/".length()) >= 0) {
            return false;
        }
        String file = upper.substring("META-INF/".length());
        return file.endsWith(".SF") || file.endsWith(".RSA") || file.endsWith(".DSA") || file.endsWith(".EC")
                || file.startsWith("SIG-");
    }

    /** The manifest without per-entry digests (entries left empty are dropped). */
    static byte[] unsignedManifest(byte[] bytes) throws IOException {
        Manifest manifest = new Manifest(new java.io.ByteArrayInputStream(bytes));
        for (Iterator<Map.Entry<String, Attributes>> it = manifest.getEntries().entrySet().iterator(); it.hasNext();) {
            Attributes attributes = it.next().getValue();
            attributes.keySet().removeIf(k -> k.toString().toUpperCase(Locale.ROOT).endsWith("-DIGEST")
                    || k.toString().toUpperCase(Locale.ROOT).contains("-DIGEST-"));
            if (attributes.isEmpty()) {
                it.remove();
            }
        }
        java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
        manifest.write(buffer);
        return buffer.toByteArray();
    }

    private void instrumentDirectory(Path input, Path temp, ClassLoader loader) throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(input)) {
            files = walk.sorted().toList();
        }
        for (Path file : files) {
            Path rel = input.relativize(file);
            Path target = temp.resolve(rel.toString());
            if (Files.isDirectory(file)) {
                Files.createDirectories(target);
                continue;
            }
            byte[] bytes = Files.readAllBytes(file);
            String name = rel.toString().replace(java.io.File.separatorChar, '/');
            if (name.endsWith(".class")) {
                bytes = instrumentClass(name, bytes, loader);
            } else {
                report.resources++;
            }
            Files.write(target, bytes);
            FileTime time = Files.getLastModifiedTime(file);
            Files.setLastModifiedTime(target, time);
        }
    }

    /** The rewritten class, or the original bytes (the reason counted in the report). */
    private byte[] instrumentClass(String entry, byte[] bytes, ClassLoader loader) {
        report.classesSeen++;
        progress(entry);
        String className;
        int access;
        try {
            ClassReader reader = new ClassReader(bytes);
            className = reader.getClassName();
            access = reader.getAccess();
        } catch (RuntimeException e) {
            report.skip("not a readable class file (copied unchanged)");
            err.println("dthreads instrument: WARNING: " + entry + " is not a readable class file; copied unchanged");
            return bytes;
        }
        if ((access & Opcodes.ACC_MODULE) != 0) {
            report.skip("module-info");
            return bytes;
        }
        if (!scope.includes(className)) {
            report.skip("out of scope");
            return bytes;
        }
        byte[] result = bytes;
        MonitorRewriter.Result monitors = MonitorRewriter.rewrite(bytes, loader);
        if (monitors.rewritten()) {
            result = monitors.bytes();
            report.monitorRewritten++;
            report.monitorSites += monitors.sites();
        } else if ("already rewritten".equals(monitors.skipReason())) {
            report.alreadyRewritten++;
        } else {
            report.skip("not rewritten: " + shortReason(monitors.skipReason()));
        }
        byte[] rmi = new RmiTransformer(scope::includes).transform(loader, className, null, null, result);
        if (rmi != null) {
            result = rmi;
            if ((access & Opcodes.ACC_INTERFACE) != 0) {
                report.twinned++;
            } else {
                report.stubsPatched++;
            }
        }
        return result;
    }

    /** Reasons without class names, so the report groups them. */
    private static String shortReason(String reason) {
        if (reason == null) {
            return "unknown";
        }
        String r = reason.replaceAll("[\\w$]+(/[\\w$]+)+", "<class>");
        return r.length() > 120 ? r.substring(0, 120) + "..." : r;
    }

    private void progress(String entry) {
        long now = System.nanoTime();
        if (report.classesSeen % PROGRESS_CLASSES == 0 || now - lastProgress > PROGRESS_NANOS) {
            lastProgress = now;
            err.println("dthreads instrument: " + report.classesSeen + " classes (" + report.monitorRewritten
                    + " rewritten) ... " + entry);
        }
    }

    /** Temporary files are created owner-only; the output gets the input's permissions instead. */
    private static void keepPermissions(Path input, Path temp) {
        try {
            Files.setPosixFilePermissions(temp, Files.getPosixFilePermissions(input));
        } catch (IOException | UnsupportedOperationException notPosix) {
            // best effort: the output stays readable by its owner
        }
    }

    private static void moveIntoPlace(Path temp, Path output, boolean jar) throws IOException {
        if (!jar && Files.isDirectory(output)) {
            Files.delete(output); // checked empty before
        }
        try {
            Files.move(temp, output, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (java.nio.file.AtomicMoveNotSupportedException e) {
            Files.move(temp, output, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static void deleteRecursively(Path p) {
        if (p == null || !Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(p)) {
            walk.sorted(Comparator.reverseOrder()).forEach(f -> {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException ignored) {
                    // best effort
                }
            });
        } catch (IOException | UncheckedIOException ignored) {
            // best effort
        }
    }

    private static String describe(Throwable e) {
        if (e instanceof UncheckedIOException u) {
            e = u.getCause();
        }
        if (e instanceof AccessDeniedException a) {
            return "permission denied: " + a.getFile();
        }
        if (e instanceof FileAlreadyExistsException f) {
            return "already exists: " + f.getFile();
        }
        if (e instanceof DirectoryNotEmptyException d) {
            return "directory not empty: " + d.getFile();
        }
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }
}
