package org.dthreads.internal;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The site's random parts read from /dev/urandom, a SecureRandom where it cannot be read (issue 16). */
class SiteConfigRandomTest {

    @TempDir
    Path tmp;

    @Test
    void readsTheDeviceWhereItExists() {
        assumeTrue(Files.isReadable(Path.of("/dev/urandom")), "a /dev/urandom");
        Set<Integer> ids = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            SiteConfig.DevRandom r = SiteConfig.DevRandom.read("/dev/urandom", 64);
            assertNotNull(r);
            ids.add(SiteConfig.from(null, r).siteId());
        }
        assertTrue(ids.size() >= 99, "100 random site ids, " + ids.size() + " distinct");
    }

    @Test
    void noDeviceOrAShortOneIsNoSource() throws IOException {
        assertNull(SiteConfig.DevRandom.read(tmp.resolve("missing").toString(), 64));
        Path shortFile = Files.write(tmp.resolve("short"), new byte[10]);
        assertNull(SiteConfig.DevRandom.read(shortFile.toString(), 64));
        assertNotNull(SiteConfig.systemRandom());
    }

    @Test
    void pastTheBytesItDrawsFromASecureRandom() throws IOException {
        Path zeros = Files.write(tmp.resolve("zeros"), new byte[64]);
        SiteConfig.DevRandom r = SiteConfig.DevRandom.read(zeros.toString(), 64);
        assertNotNull(r);
        // sixteen zero words, each rejected by the non-zero draws; then the SecureRandom's
        SiteConfig c = SiteConfig.from(null, r);
        assertNotEquals(0, c.siteId());
        assertNotEquals(0, c.counterOrigin());
        assertNotEquals(0L, c.incarnation());
    }
}
