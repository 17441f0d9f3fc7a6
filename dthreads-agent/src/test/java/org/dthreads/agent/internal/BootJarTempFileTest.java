package org.dthreads.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The boot jar's temporary file, made without {@code Files.createTempFile}'s SecureRandom (issue 16). */
class BootJarTempFileTest {

    @TempDir
    Path tmp;

    @Test
    void aNewOwnerOnlyFileWithARandomName() throws IOException {
        Path[] created = new Path[1];
        try (OutputStream out = BootJar.createTemp(tmp, created)) {
            out.write(42);
        }
        Path p = created[0];
        assertTrue(p.getFileName().toString().matches("dthreads-boot-\\d+\\.jar"), p.toString());
        assertEquals(tmp, p.getParent());
        assertEquals(1, Files.size(p));
        if (Files.getFileStore(p).supportsFileAttributeView("posix")) {
            assertEquals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
                    Files.getPosixFilePermissions(p));
        }
        Path[] second = new Path[1];
        BootJar.createTemp(tmp, second).close();
        assertTrue(!second[0].equals(p), "a new name each time");
    }

    @Test
    void createNewRefusesAPlantedLink() throws IOException {
        // what the creating call relies on in a shared directory: O_CREAT|O_EXCL fails on an existing link
        Path target = Files.writeString(tmp.resolve("victim"), "x");
        Path link = Files.createSymbolicLink(tmp.resolve("dthreads-boot-1.jar"), target);
        assertThrows(FileAlreadyExistsException.class, () -> Files.newByteChannel(link,
                Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)).close());
        assertEquals("x", Files.readString(target));
    }
}
