package org.dthreads.junit.internal;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One JVM shutdown hook for the whole kit: whatever is still registered when the test JVM exits
 * (sites, namespaces, temp directories) is ended, in reverse order of registration.
 */
public final class Cleanup {

    private static final Map<Long, Runnable> ACTIONS = new ConcurrentHashMap<>();
    private static final AtomicLong IDS = new AtomicLong();
    private static volatile boolean hooked;

    private Cleanup() {}

    /** Registers an action for JVM exit; run it or drop it with the returned handle. */
    public static Registration register(Runnable action) {
        hook();
        long id = IDS.incrementAndGet();
        ACTIONS.put(id, action);
        return () -> ACTIONS.remove(id);
    }

    /** Handle of a registered action. */
    @FunctionalInterface
    public interface Registration {
        /** Drops the action (it has been done another way). */
        void unregister();
    }

    private static synchronized void hook() {
        if (hooked) {
            return;
        }
        hooked = true;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            List<Long> ids = new ArrayList<>(ACTIONS.keySet());
            ids.sort((a, b) -> Long.compare(b, a));
            for (Long id : ids) {
                Runnable r = ACTIONS.remove(id);
                if (r != null) {
                    try {
                        r.run();
                    } catch (Throwable t) {
                        // keep going: the rest still needs ending
                    }
                }
            }
        }, "dthreads-junit-cleanup"));
    }

    /**
     * Deletes {@code <tmp>/<prefix><pid>-*} directories whose creating JVM (pid) is
     * gone, which only happens when a test JVM was killed with SIGKILL before its hook could run.
     */
    public static void sweepStaleTempDirs(String prefix) {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (java.util.stream.Stream<Path> s = Files.list(tmp)) {
            s.filter(p -> p.getFileName().toString().startsWith(prefix)).forEach(p -> {
                String rest = p.getFileName().toString().substring(prefix.length());
                int dash = rest.indexOf('-');
                if (dash > 0) {
                    try {
                        long pid = Long.parseLong(rest.substring(0, dash));
                        if (ProcessHandle.of(pid).isEmpty()) {
                            deleteTree(p);
                        }
                    } catch (NumberFormatException e) {
                        // not ours
                    }
                }
            });
        } catch (IOException e) {
            // best effort
        }
    }

    /** Deletes a directory tree; never throws. */
    public static void deleteTree(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            // best effort
        }
    }
}
