package org.dthreads.benchmarks.paper.table2;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.dthreads.monitor.internal.rewriter.MonitorRewriter;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.util.CheckClassAdapter;

/**
 * The libraries of the paper's Table 2 and their three builds, each defined by its own class loader
 * from byte arrays made at set-up: the {@link Variant#ORIGINAL original} library, the library with
 * the {@link Variant#EXTRA_ARGUMENT universal extra argument} ({@link ExtraArgumentTransformer}),
 * and the library as {@link Variant#DTHREADS dthreads} rewrites it (the monitor rewriter of
 * {@code monitor-lib}, which changes monitor operations only and leaves every call untouched). The
 * workload's driver class is loaded (and for the extra argument, transformed) with the library, so
 * its calls bind to that build.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar org.dthreads.benchmarks.paper.table2.LibraryVariants
 * </pre>
 * prints what each transformation did, verifies every transformed class with ASM's
 * {@link CheckClassAdapter} (data flow included) and checks that every build computes the same
 * result.
 */
public final class LibraryVariants {

    /** The three builds of a library. */
    public enum Variant { ORIGINAL, EXTRA_ARGUMENT, DTHREADS }

    /** A library from Maven Central (shaded into benchmarks.jar) and its workload. */
    public enum Library {
        /** Mozilla Rhino 1.7.15, a JavaScript engine, in interpreted mode: the counterpart of jess and javac. */
        RHINO("org/mozilla/", List.of("org/mozilla/javascript/tools/"), "org/mozilla/javascript/Context.class",
                RhinoWorkload.class),
        /** XZ for Java 1.9 (org.tukaani:xz), LZMA2 compression and decompression: the counterpart of compress. */
        XZ("org/tukaani/xz/", List.of(), "org/tukaani/xz/XZOutputStream.class", XzWorkload.class);

        final String prefix;
        final List<String> excluded;
        final String marker;
        final Class<? extends LongSupplier> driver;

        Library(String prefix, List<String> excluded, String marker, Class<? extends LongSupplier> driver) {
            this.prefix = prefix;
            this.excluded = excluded;
            this.marker = marker;
            this.driver = driver;
        }
    }

    private LibraryVariants() {}

    /** The library's classes and its driver's, as the class path holds them: internal name -> bytes. */
    public static Map<String, byte[]> originalClasses(Library library) {
        Map<String, byte[]> classes = new LinkedHashMap<>();
        ClassLoader app = LibraryVariants.class.getClassLoader();
        URL url = app.getResource(library.marker);
        if (url == null) {
            throw new IllegalStateException(library.marker + " is not on the class path");
        }
        try {
            if (url.getProtocol().equals("jar")) {
                JarFile jar = ((JarURLConnection) url.openConnection()).getJarFile();
                for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                    JarEntry entry = e.nextElement();
                    String name = entry.getName();
                    if (inLibrary(library, name)) {
                        try (InputStream in = jar.getInputStream(entry)) {
                            classes.put(name.substring(0, name.length() - ".class".length()), in.readAllBytes());
                        }
                    }
                }
            } else {
                Path marker = Paths.get(url.toURI());
                Path root = marker;
                for (int i = 0; i < library.marker.split("/").length; i++) {
                    root = root.getParent();
                }
                Path top = root;
                try (Stream<Path> files = Files.walk(root)) {
                    for (Path f : (Iterable<Path>) files::iterator) {
                        String name = top.relativize(f).toString().replace('\\', '/');
                        if (inLibrary(library, name)) {
                            classes.put(name.substring(0, name.length() - ".class".length()), Files.readAllBytes(f));
                        }
                    }
                }
            }
            String driver = library.driver.getName().replace('.', '/');
            try (InputStream in = app.getResourceAsStream(driver + ".class")) {
                classes.put(driver, in.readAllBytes());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        if (classes.size() < 10) {
            throw new IllegalStateException("only " + classes.size() + " classes found for " + library);
        }
        return classes;
    }

    private static boolean inLibrary(Library library, String name) {
        if (!name.startsWith(library.prefix) || !name.endsWith(".class") || name.contains("module-info")) {
            return false;
        }
        for (String excluded : library.excluded) {
            if (name.startsWith(excluded)) {
                return false;
            }
        }
        return true;
    }

    /** A build of a library: its bytes and what producing them did. */
    public record Build(Library library, Variant variant, Map<String, byte[]> classes, String report) {

        /** A new class loader holding this build, and a new instance of the workload's driver in it. */
        public LongSupplier newWorkload() {
            try {
                ClassLoader loader = new BytesLoader(library + "-" + variant, classes);
                return (LongSupplier) loader.loadClass(library.driver.getName()).getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }

        /**
         * Loads every class of this build in a fresh loader and verifies it with ASM's
         * {@link CheckClassAdapter} (structure and data flow, super-types through that loader).
         *
         * @return the problems, empty if none
         */
        public List<String> verify() {
            BytesLoader loader = new BytesLoader(library + "-" + variant + "-verify", classes);
            List<String> problems = new ArrayList<>();
            for (Map.Entry<String, byte[]> e : classes.entrySet()) {
                try {
                    loader.loadClass(e.getKey().replace('/', '.'));
                } catch (ClassNotFoundException | LinkageError ex) {
                    problems.add(e.getKey() + ": load: " + ex);
                    continue;
                }
                StringWriter text = new StringWriter();
                try {
                    CheckClassAdapter.verify(new ClassReader(e.getValue()), loader, false, new PrintWriter(text));
                } catch (RuntimeException | LinkageError ex) {
                    text.append(ex.toString());
                }
                if (!text.toString().isBlank()) {
                    problems.add(e.getKey() + ": " + text.toString().strip());
                }
            }
            return problems;
        }
    }

    /** Builds one variant of a library. */
    public static Build build(Library library, Variant variant) {
        Map<String, byte[]> original = originalClasses(library);
        switch (variant) {
            case ORIGINAL:
                return new Build(library, variant, original, original.size() + " classes, unchanged");
            case EXTRA_ARGUMENT: {
                ExtraArgumentTransformer.Stats stats = new ExtraArgumentTransformer.Stats();
                Map<String, byte[]> out = ExtraArgumentTransformer.transform(original, stats);
                return new Build(library, variant, out, stats.toString());
            }
            case DTHREADS: {
                Map<String, byte[]> out = new LinkedHashMap<>();
                int rewritten = 0;
                int sites = 0;
                ClassLoader app = LibraryVariants.class.getClassLoader();
                for (Map.Entry<String, byte[]> e : original.entrySet()) {
                    MonitorRewriter.Result r = MonitorRewriter.rewrite(e.getValue(), app);
                    if (r.rewritten()) {
                        rewritten++;
                        sites += r.sites();
                        out.put(e.getKey(), r.bytes());
                    } else {
                        out.put(e.getKey(), e.getValue());
                    }
                }
                return new Build(library, variant, out, original.size() + " classes, " + rewritten
                        + " rewritten by dthreads' monitor rewriter, " + sites + " monitor sites; calls untouched");
            }
            default:
                throw new AssertionError(variant);
        }
    }

    /** Child-first for the build's classes, everything else (JDK, dthreads' monitor runtime) from the application loader. */
    static final class BytesLoader extends ClassLoader {
        static {
            registerAsParallelCapable();
        }

        private final Map<String, byte[]> classes;

        BytesLoader(String name, Map<String, byte[]> classes) {
            super(name, LibraryVariants.class.getClassLoader());
            this.classes = classes;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            byte[] bytes = classes.get(name.replace('.', '/'));
            if (bytes == null) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = defineClass(name, bytes, 0, bytes.length);
                }
                return c;
            }
        }
    }

    /** Prints each build's report, verifies the transformed builds and compares results. */
    public static void main(String[] args) {
        boolean failed = false;
        for (Library library : Library.values()) {
            Long expected = null;
            for (Variant variant : Variant.values()) {
                long start = System.nanoTime();
                Build build = build(library, variant);
                long built = System.nanoTime();
                List<String> problems = variant == Variant.ORIGINAL ? List.of() : build.verify();
                long verified = System.nanoTime();
                long result = build.newWorkload().getAsLong();
                long t0 = System.nanoTime();
                long again = build.newWorkload().getAsLong();
                long t1 = System.nanoTime();
                if (expected == null) {
                    expected = result;
                }
                boolean same = result == expected && again == expected;
                failed |= !same || !problems.isEmpty();
                System.out.printf("%s %s: %s%n  built in %d ms, verified in %d ms: %s; result %d (%s), one run %.1f ms%n",
                        library, variant, build.report(), (built - start) / 1_000_000, (verified - built) / 1_000_000,
                        problems.isEmpty() ? "no problems" : problems.size() + " problems", result,
                        same ? "same as original" : "DIFFERS from " + expected, (t1 - t0) / 1e6);
                problems.stream().limit(10).forEach(p -> System.out.println("    " + p));
            }
        }
        if (failed) {
            System.exit(1);
        }
    }
}
