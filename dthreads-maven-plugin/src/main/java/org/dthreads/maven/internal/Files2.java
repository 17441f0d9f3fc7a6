package org.dthreads.maven.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/** File chores of the instrument goal. */
public final class Files2 {

    private Files2() {}

    /** Whether {@code out} exists and was written after {@code in} last changed. */
    public static boolean isNewer(Path out, Path in) {
        try {
            return Files.isRegularFile(out) && Files.getLastModifiedTime(out).compareTo(Files.getLastModifiedTime(in)) >= 0;
        } catch (IOException e) {
            return false;
        }
    }

    public static boolean isNonEmptyDirectory(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.findAny().isPresent();
        }
    }

    /** Replaces {@code target} (a file or a directory tree, possibly absent) by {@code source}. */
    public static void replace(Path source, Path target) throws IOException {
        deleteRecursively(target);
        Files.createDirectories(target.toAbsolutePath().getParent());
        Files.move(source, target, StandardCopyOption.REPLACE_EXISTING);
    }

    public static void deleteRecursively(Path p) throws IOException {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(p)) {
            for (Path f : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
