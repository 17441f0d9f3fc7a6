package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.dthreads.ThreadClass;
import org.dthreads.iiop.support.Orbs;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.OutputStream;

/**
 * The body of a {@value MonitorRequestHook#OPERATION} request and its check value, through the CDR streams of
 * JacORB and of the GlassFish ORB (no connection: {@code ORB.create_output_stream}). The bound by the GIOP
 * message is exercised end to end in {@code ServantInvokePatchTest} and {@code DsiServantPatchTest}.
 */
class MonitorRequestBodyTest {

    static final MonitorRequestBody ENTER = new MonitorRequestBody(RemoteMonitorSite.ENTER, 0,
            ThreadClass.of(0x2a, 7), 0L, 30_000L);

    static ORB jacorb;
    static ORB glassfish;

    @BeforeAll
    static void start() {
        jacorb = Orbs.init(Orbs.Kind.JACORB, false);
        glassfish = Orbs.init(Orbs.Kind.GLASSFISH, false);
    }

    @AfterAll
    static void stop() {
        Orbs.shutdown(jacorb);
        Orbs.shutdown(glassfish);
    }

    static byte[] encode(MonitorRequestBody body) {
        OutputStream out = jacorb.create_output_stream();
        body.write(out);
        InputStream in = out.create_input_stream();
        byte[] bytes = new byte[36];
        in.read_octet_array(bytes, 0, bytes.length);
        return bytes;
    }

    /** A JacORB stream over {@code bytes}: like a request stream, it reads whatever the array holds. */
    static InputStream jacorbStream(byte[] bytes) {
        return new org.jacorb.orb.CDRInputStream(jacorb, bytes);
    }

    @Test
    void theExampleOfTheWireFormatDocument() {
        assertEquals(0x78f0600e, ENTER.check());
        assertArrayEquals(HexFormat.of().parseHex("00000001" + "00000000" + "0000002a00000007" + "0000000000000000"
                + "0000000000007530" + "78f0600e"), encode(ENTER));
    }

    @Test
    void readsWhatWasWrittenOnBothOrbs() throws Exception {
        for (ORB orb : new ORB[] {jacorb, glassfish}) {
            for (MonitorRequestBody body : new MonitorRequestBody[] {ENTER,
                    new MonitorRequestBody(RemoteMonitorSite.WAIT, 999_999, -1L, Long.MIN_VALUE, Long.MAX_VALUE)}) {
                OutputStream out = orb.create_output_stream();
                body.write(out);
                assertEquals(body, MonitorRequestBody.read(out.create_input_stream()), orb.getClass().getName());
            }
        }
    }

    @Test
    void aShortBodyIsMalformedOnBothOrbs() {
        for (ORB orb : new ORB[] {jacorb, glassfish}) {
            for (int length = 0; length < 36; length += 4) {
                byte[] prefix = Arrays.copyOf(encode(ENTER), length);
                OutputStream out = orb.create_output_stream();
                out.write_octet_array(prefix, 0, prefix.length);
                InputStream in = out.create_input_stream();
                String where = orb.getClass().getName() + ", " + length + " bytes";
                MonitorRequestBody.Malformed e = assertThrows(MonitorRequestBody.Malformed.class,
                        () -> MonitorRequestBody.read(in), where);
                assertTrue(e.getMessage().startsWith("unreadable"), where + ": " + e.getMessage());
            }
        }
    }

    @Test
    void anyChangedByteFailsTheCheck() throws Exception {
        byte[] good = encode(ENTER);
        assertEquals(ENTER, MonitorRequestBody.read(jacorbStream(good)));
        for (int i = 0; i < good.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] bad = good.clone();
                bad[i] ^= (byte) (1 << bit);
                MonitorRequestBody.Malformed e = assertThrows(MonitorRequestBody.Malformed.class,
                        () -> MonitorRequestBody.read(jacorbStream(bad)), "byte " + i + " bit " + bit);
                assertTrue(e.getMessage().startsWith("check value"), e.getMessage());
            }
        }
    }

    /**
     * What JacORB does with a short request: reads on into the rest of the buffer. Whatever is there, the check
     * value fails (but for 1 in 2^32 patterns, and the tail of an earlier request of the same shape: the GIOP
     * bound catches that one).
     */
    @Test
    void aShortBodyFollowedByStaleBytesFailsTheCheck() {
        Random random = new Random(42);
        byte[] good = encode(ENTER);
        for (int length = 4; length <= 32; length += 4) {
            for (int trial = 0; trial < 50; trial++) {
                byte[] buffer = new byte[1023];
                random.nextBytes(buffer);
                if (trial == 0) {
                    Arrays.fill(buffer, (byte) 0); // a fresh buffer
                } else if (trial == 1) {
                    for (int i = 0; i < buffer.length; i += 8) { // a valid class everywhere
                        System.arraycopy(good, 8, buffer, i, Math.min(8, buffer.length - i));
                    }
                }
                System.arraycopy(good, 0, buffer, 0, length);
                assertThrows(MonitorRequestBody.Malformed.class, () -> MonitorRequestBody.read(jacorbStream(buffer)),
                        length + " bytes, trial " + trial);
            }
        }
    }

    @Test
    void theCheckIsOverTheValuesNotTheByteOrder() throws Exception {
        byte[] big = encode(ENTER);
        byte[] little = new byte[36];
        for (int[] field : new int[][] {{0, 4}, {4, 4}, {8, 8}, {16, 8}, {24, 8}, {32, 4}}) {
            for (int i = 0; i < field[1]; i++) {
                little[field[0] + i] = big[field[0] + field[1] - 1 - i];
            }
        }
        assertEquals(ENTER, MonitorRequestBody.read(new org.jacorb.orb.CDRInputStream(jacorb, little, true)));
    }
}
