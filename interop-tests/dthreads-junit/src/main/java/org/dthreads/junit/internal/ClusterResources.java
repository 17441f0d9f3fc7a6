package org.dthreads.junit.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What a cluster must release besides its sites: its temporary directory (argfiles and the like),
 * the resources closed with it (network namespaces, for example) and its JVM-exit hook, which
 * kills the sites and releases the rest if the test JVM exits before the cluster is closed. A new
 * cluster first deletes the directories that clusters of dead test JVMs left behind.
 *
 * <h2>Threading contract</h2>
 * Thread-safe. The resources are taken off a stack under this object's lock and closed outside it,
 * so a normal close and the exit hook never close one resource twice.
 */
public final class ClusterResources {

    private static final String TEMP_PREFIX = "dthreads-sites-";

    private final Deque<AutoCloseable> owned = new ArrayDeque<>();
    private final Path tempDir;
    private final Cleanup.Registration cleanup;

    /** Creates the temporary directory and the exit hook, which runs {@code killSitesNow} first. */
    public ClusterResources(Runnable killSitesNow) {
        try {
            Cleanup.sweepStaleTempDirs(TEMP_PREFIX);
            this.tempDir = Files.createTempDirectory(TEMP_PREFIX + ProcessHandle.current().pid() + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.cleanup = Cleanup.register(() -> {
            killSitesNow.run();
            closeOwned();
            Cleanup.deleteTree(tempDir);
        });
    }

    public Path tempDir() {
        return tempDir;
    }

    /** Adds a resource to close with the cluster; they close in reverse order of adding. */
    public synchronized void closeWith(AutoCloseable resource) {
        owned.push(resource);
    }

    private void closeOwned() {
        while (true) {
            AutoCloseable c;
            synchronized (this) {
                c = owned.poll();
            }
            if (c == null) {
                return;
            }
            try {
                c.close();
            } catch (Exception e) {
                // keep closing the rest
            }
        }
    }

    /** Closes the resources, deletes the temporary directory and drops the exit hook (call after the sites are killed). */
    public void release() {
        closeOwned();
        Cleanup.deleteTree(tempDir);
        cleanup.unregister();
    }
}
