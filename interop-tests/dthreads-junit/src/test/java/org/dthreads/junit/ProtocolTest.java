package org.dthreads.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.dthreads.junit.internal.LineReader;
import org.dthreads.junit.internal.Protocol;
import org.dthreads.junit.internal.Tail;
import org.junit.jupiter.api.Test;

/** The line protocol and output handling, without processes. */
class ProtocolTest {

    @Test
    void parsesOnlyLinesWithTheToken() {
        assertTrue(Protocol.parse("DTHREADS-SITE other READY", "tok").isEmpty());
        assertTrue(Protocol.parse("hello", "tok").isEmpty());
        assertTrue(Protocol.parse("DTHREADS-SITE tok ", "tok").isEmpty());
        Protocol.Message m = Protocol.parse("junit DTHREADS-SITE tok READY a=1 b=x%3Dy", "tok").orElseThrow();
        assertEquals("READY", m.verb());
        assertEquals(Map.of("a", "1", "b", "x=y"), m.pairs(0));
    }

    @Test
    void encodesAnyTextIntoOneField() {
        String v = "IOR:0001 \n=%+ é";
        String line = Protocol.line("t", "ENDPOINT", Protocol.pair("ior.A", v));
        assertEquals(1, line.split("\n").length);
        assertEquals(v, Protocol.parse(line.strip(), "t").orElseThrow().pairs(0).get("ior.A"));
        assertEquals("", Protocol.decodeArg(Protocol.encodeArg("")));
        assertThrows(IllegalArgumentException.class, () -> Protocol.parse("DTHREADS-SITE t X %zz=1", "t").orElseThrow().pairs(0));
        assertEquals(List.of("RUN", "1", "x"), Protocol.splitCommand("  RUN  1 x \r"));
    }

    @Test
    void lineReaderBoundsLinesAndSurvivesBinary() throws IOException {
        byte[] in = ("short\r\n" + "y".repeat(100) + "\n" + "tail-without-newline").getBytes(StandardCharsets.UTF_8);
        byte[] withBinary = new byte[in.length + 3];
        System.arraycopy(new byte[] {(byte) 0xff, 0, '\n'}, 0, withBinary, 0, 3);
        System.arraycopy(in, 0, withBinary, 3, in.length);
        LineReader r = new LineReader(new ByteArrayInputStream(withBinary), 10);
        assertEquals("\ufffd\u0000", r.readLine());
        assertEquals("short", r.readLine());
        assertEquals("y".repeat(10), r.readLine());
        assertTrue(r.lastTruncated());
        assertEquals("tail-witho", r.readLine());
        assertNull(r.readLine());
    }

    @Test
    void tailKeepsTheLastLines() {
        Tail t = new Tail(2, 5);
        t.add("one");
        t.add("two");
        t.add("three-long");
        assertEquals("> [... 1 earlier lines dropped]\n> two\n> three... [5 more chars]\n", t.render("> "));
    }
}
