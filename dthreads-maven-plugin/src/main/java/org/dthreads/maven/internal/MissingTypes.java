package org.dthreads.maven.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.apache.maven.artifact.Artifact;
import org.dthreads.agent.internal.AgentScope;
import org.dthreads.agent.internal.Instrumenter;
import org.dthreads.monitor.internal.rewriter.MonitorRewriter;

/**
 * Names the classes the instrumenter left unchanged because a type they use could not be read, and
 * the dependency that would provide each type. The instrumenter's report groups these by reason
 * only; this re-runs the rewriter on the input's classes in scope to name them (only when the report
 * says there are some).
 */
public final class MissingTypes {

    private static final String UNKNOWN_TYPE = "cannot read the class file of ";
    private static final int LISTED = 20;

    private final Path input;
    private final List<Path> classPath;
    private final AgentScope scope;
    private final Collection<Artifact> artifacts;

    /**
     * @param artifacts every dependency of the project, any scope: where a missing type is looked for
     */
    public MissingTypes(Path input, List<Path> classPath, AgentScope scope, Collection<Artifact> artifacts) {
        this.input = input;
        this.classPath = classPath;
        this.scope = scope;
        this.artifacts = artifacts;
    }

    public static boolean anyIn(Instrumenter.Report report) {
        return report.skipped().keySet().stream().anyMatch(reason -> reason.contains(UNKNOWN_TYPE));
    }

    /** A class left unchanged, the type it misses, and the project's dependency that has that type (or null). */
    public record Missing(String className, String type, Artifact provider) {
        @Override
        public String toString() {
            return className + " needs " + type + ": " + (provider != null
                    ? "it is in " + provider.getId() + ", scope " + provider.getScope() + ", which is not on the compile"
                            + " or runtime class path: give it scope compile, provided or runtime"
                    : "no dependency of this project provides it: add the one that contains " + type
                            + " (scope provided is enough for instrumenting)");
        }
    }

    /** Each class of the input in scope that the rewriter leaves unchanged for a type it cannot read. */
    public List<Missing> find() {
        List<Missing> found = new ArrayList<>();
        missingByClass().forEach((className, type) -> found.add(new Missing(className, type, provider(type))));
        return found;
    }

    /** The build error or warning: each class, the type it misses and where that type is. */
    public static String describe(String what, List<Missing> missing) {
        StringBuilder s = new StringBuilder("dthreads: ").append(missing.size()).append(" class(es) of ")
                .append(what).append(" cannot be rewritten: a type they use is on no class path of the project.");
        for (int i = 0; i < missing.size(); i++) {
            if (i == LISTED) {
                s.append("\n  ... and ").append(missing.size() - LISTED).append(" more");
                break;
            }
            s.append("\n  ").append(missing.get(i));
        }
        return s.toString();
    }

    private Map<String, String> missingByClass() {
        Map<String, String> missing = new TreeMap<>();
        try (URLClassLoader loader = hierarchyLoader()) {
            forEachClass((name, bytes) -> {
                String internal = name.substring(0, name.length() - ".class".length());
                if (scope.includes(internal)) {
                    String reason = MonitorRewriter.rewrite(bytes, loader).skipReason();
                    if (reason != null && reason.startsWith(UNKNOWN_TYPE)) {
                        missing.put(internal.replace('/', '.'), reason.substring(UNKNOWN_TYPE.length()));
                    }
                }
            });
        } catch (IOException | UncheckedIOException e) {
            throw new UncheckedIOException("cannot list the classes of " + input, e instanceof UncheckedIOException u
                    ? u.getCause() : (IOException) e);
        }
        return missing;
    }

    private Artifact provider(String type) {
        String entry = type.replace('.', '/') + ".class";
        for (Artifact a : artifacts) {
            if (a.getFile() != null && contains(a.getFile().toPath(), entry)) {
                return a;
            }
        }
        return null;
    }

    private static boolean contains(Path jarOrDir, String entry) {
        if (Files.isDirectory(jarOrDir)) {
            return Files.isRegularFile(jarOrDir.resolve(entry));
        }
        try (ZipFile zip = new ZipFile(jarOrDir.toFile())) {
            return zip.getEntry(entry) != null;
        } catch (IOException e) {
            return false;
        }
    }

    private URLClassLoader hierarchyLoader() throws IOException {
        List<URL> urls = new ArrayList<>();
        urls.add(input.toUri().toURL());
        for (Path p : classPath) {
            urls.add(p.toUri().toURL());
        }
        return new URLClassLoader("dthreads-missing-types", urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    }

    private interface ClassVisitor {
        void visit(String entryName, byte[] bytes);
    }

    private void forEachClass(ClassVisitor visitor) throws IOException {
        if (Files.isDirectory(input)) {
            try (Stream<Path> walk = Files.walk(input)) {
                for (Path f : walk.filter(p -> p.toString().endsWith(".class")).sorted().toList()) {
                    visitor.visit(input.relativize(f).toString().replace(java.io.File.separatorChar, '/'), Files.readAllBytes(f));
                }
            }
            return;
        }
        try (ZipFile zip = new ZipFile(input.toFile())) {
            for (ZipEntry e : zip.stream().filter(e -> e.getName().endsWith(".class")).toList()) {
                try (InputStream in = zip.getInputStream(e)) {
                    visitor.visit(e.getName(), in.readAllBytes());
                }
            }
        }
    }
}
