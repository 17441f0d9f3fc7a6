package org.dthreads.rmi.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.dthreads.DThreads;
import org.dthreads.rmi.internal.RmiClientHook;

/**
 * Builds, into a directory, the two jars the forked tests attach: {@code boot.jar} (dthreads-api and
 * the JRMP runtime hooks, for the bootstrap path) and {@code agent.jar} (a manifest naming
 * {@link TestAgent}, whose classes come from the test class path).
 */
public final class AgentJars {
    private AgentJars() {}

    /** @return the agent jar */
    public static Path build(Path dir) throws IOException, URISyntaxException {
        Path apiClasses = Path.of(DThreads.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path rmiClasses = Path.of(RmiClientHook.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path monitorClasses = Path.of(org.dthreads.monitor.spi.OutgoingCalls.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI());
        Path boot = dir.resolve("boot.jar");
        try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(boot), new Manifest())) {
            addTree(jar, apiClasses, p -> true);
            addTree(jar, monitorClasses, p -> !p.toString().contains("/rewriter/"));
            addTree(jar, rmiClasses, p -> {
                String name = p.getFileName().toString();
                return List.of("RmiClientHook", "TwinSupport", "Twins", "SkeletonTwins", "SiteHellos", "Callback").stream()
                        .anyMatch(k -> name.equals(k + ".class") || name.startsWith(k + "$") || k.equals("Callback") && name.startsWith(k));
            });
        }
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.putValue("Premain-Class", TestAgent.class.getName());
        main.putValue("Can-Retransform-Classes", "true");
        main.putValue("Can-Redefine-Classes", "true");
        main.putValue("Boot-Class-Path", "boot.jar");
        Path agent = dir.resolve("agent.jar");
        try (OutputStream out = Files.newOutputStream(agent); JarOutputStream jar = new JarOutputStream(out, manifest)) {
            // manifest only
        }
        return agent;
    }

    private static void addTree(JarOutputStream jar, Path root, java.util.function.Predicate<Path> include) throws IOException {
        if (Files.isRegularFile(root)) { // a jar from the local repository
            try (java.nio.file.FileSystem zip = java.nio.file.FileSystems.newFileSystem(root)) {
                addTree(jar, zip.getPath("/"), include);
            }
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile).filter(f -> f.toString().endsWith(".class"))
                    .filter(include)::iterator) {
                jar.putNextEntry(new JarEntry(root.relativize(file).toString().replace('\\', '/').replaceFirst("^/", "")));
                jar.write(Files.readAllBytes(file));
                jar.closeEntry();
            }
        }
    }
}
