package org.dthreads.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The instrumenter in-process: signature handling, scope, permissions and the report. */
class InstrumenterTest {

    @TempDir
    Path tmp;

    /** A class with a synchronized method, in scope. */
    static class Counter {
        int n;

        synchronized void inc() {
            n++;
        }
    }

    @Test
    void signatureFilesAreRecognised() {
        assertTrue(Instrumenter.isSignatureFile("META-INF/SIGNER.SF"));
        assertTrue(Instrumenter.isSignatureFile("META-INF/signer.rsa"));
        assertTrue(Instrumenter.isSignatureFile("META-INF/A.DSA"));
        assertTrue(Instrumenter.isSignatureFile("META-INF/A.EC"));
        assertTrue(Instrumenter.isSignatureFile("META-INF/SIG-FOO"));
        assertFalse(Instrumenter.isSignatureFile("META-INF/MANIFEST.MF"));
        assertFalse(Instrumenter.isSignatureFile("META-INF/maven/x/A.SF"));
        assertFalse(Instrumenter.isSignatureFile("a/B.SF"));
    }

    @Test
    void manifestLosesItsDigestsOnly() throws Exception {
        String text = "Manifest-Version: 1.0\r\nMain-Class: a.B\r\n\r\n"
                + "Name: a/B.class\r\nSHA-256-Digest: AAAA\r\n\r\n"
                + "Name: a/C.class\r\nSHA1-Digest: BBBB\r\nX-Keep: yes\r\n\r\n";
        Manifest m = new Manifest(new ByteArrayInputStream(
                Instrumenter.unsignedManifest(text.getBytes(StandardCharsets.UTF_8))));
        assertEquals("a.B", m.getMainAttributes().getValue("Main-Class"));
        assertEquals(1, m.getEntries().size());
        assertEquals("yes", m.getEntries().get("a/C.class").getValue("X-Keep"));
        assertEquals(null, m.getEntries().get("a/C.class").getValue("SHA1-Digest"));
    }

    @Test
    void directoryInDirectoryOutWithScopeAndPermissions() throws Exception {
        Path in = tmp.resolve("in");
        String entry = Counter.class.getName().replace('.', '/') + ".class";
        Path classFile = in.resolve(entry);
        Files.createDirectories(classFile.getParent());
        try (var bytes = InstrumenterTest.class.getClassLoader().getResourceAsStream(entry)) {
            Files.write(classFile, bytes.readAllBytes());
        }
        Files.writeString(in.resolve("note.txt"), "hello");
        Files.setPosixFilePermissions(in, PosixFilePermissions.fromString("rwxr-xr-x"));

        ByteArrayOutputStream err = new ByteArrayOutputStream();
        // org.dthreads. is excluded by default: include this test class explicitly
        AgentScope scope = new AgentScope(List.of(Counter.class.getName()), List.of());
        Instrumenter.Report report = new Instrumenter(scope, List.of(), new PrintStream(err)).run(in, tmp.resolve("out"));
        assertEquals(1, report.classesSeen());
        assertEquals(1, report.monitorRewritten());
        assertEquals(1, report.resources());
        assertEquals("hello", Files.readString(tmp.resolve("out/note.txt")));
        assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve("out"))));
        assertTrue(Files.size(tmp.resolve("out").resolve(entry)) != Files.size(classFile));

        Instrumenter.Report outOfScope = new Instrumenter(new AgentScope(List.of(), List.of()), List.of(),
                new PrintStream(err)).run(in, tmp.resolve("out2"));
        assertEquals(0, outOfScope.monitorRewritten());
        assertEquals(1, outOfScope.skipped().get("out of scope"));

        Instrumenter.InstrumentException notEmpty = assertThrows(Instrumenter.InstrumentException.class,
                () -> new Instrumenter(scope, List.of(), new PrintStream(err)).run(in, tmp.resolve("out")));
        assertTrue(notEmpty.isUsageError());
        assertTrue(notEmpty.getMessage().contains("not empty"), notEmpty.getMessage());
    }
}
