package org.dthreads.iiop.internal;

import java.nio.ByteBuffer;
import java.util.OptionalInt;
import java.util.zip.CRC32;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.OutputStream;

/**
 * The body of a {@value MonitorRequestHook#OPERATION} request: five values, then a check value over them
 * ({@code docs/wire-format.md}, "Remote monitor operations over IIOP"). Written by {@link IiopMonitorTransport},
 * read by {@link MonitorRequests}.
 *
 * <h2>Why a check value, and a bound where the ORB gives one</h2>
 * A server must never run an operation a client did not send. A truncated body is not always seen as such:
 * JacORB reads past the end of a short body into what an earlier message left in its pooled buffer (see
 * {@link GiopBodyEnd}), so the five values can be plausible garbage, e.g. a valid class, and an operation ran and
 * was answered OK. Hence two checks, each catching what the other cannot:
 * <ul>
 * <li>the <b>check value</b>, the CRC-32 of the five values' canonical encoding, written last: catches a short or
 * corrupted body on every ORB, whatever its streams do past the end (garbage matches with probability 2^-32);
 * <li>the <b>end of the GIOP message</b>, where the ORB tells ({@link GiopBodyEnd}: JacORB): catches the one case a
 * check value cannot, a short body whose missing tail the buffer happens to hold from an earlier request of the
 * same shape (the earlier request's values and check then match each other).
 * </ul>
 * The GlassFish ORB ends its streams at the message itself ({@code MARSHAL} past it).
 *
 * <p>The check is over the values, not the bytes received, so it is the same in either byte order and whatever
 * CDR alignment padding the GIOP version puts before {@code class}: CRC-32 (as {@link CRC32}) of op, nanos,
 * class, token, arg as 4, 4, 8, 8, 8 bytes big-endian (32 bytes), sent as an {@code unsigned long}.
 *
 * @param op the operation code ({@code RemoteMonitorSite})
 * @param nanos extra nanoseconds of a wait
 * @param threadClass the calling thread's class
 * @param token the lease token
 * @param arg the operation's argument
 */
record MonitorRequestBody(int op, int nanos, long threadClass, long token, long arg) {

    /** What the server names when it refuses a body; also the reason a read failed. */
    static final String LAYOUT = "long op, long nanos, long long class, long long token, long long arg,"
            + " unsigned long check (CRC-32 of the five values)";

    /** A body that must not be served; the message says why. */
    static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;

        Malformed(String reason) {
            super(reason, null, false, false);
        }
    }

    /** Writes the body, check value last. */
    void write(OutputStream out) {
        out.write_long(op);
        out.write_long(nanos);
        out.write_longlong(threadClass);
        out.write_longlong(token);
        out.write_longlong(arg);
        out.write_ulong(check());
    }

    /** The check value of these five values. */
    int check() {
        ByteBuffer canonical = ByteBuffer.allocate(32); // big-endian
        canonical.putInt(op).putInt(nanos).putLong(threadClass).putLong(token).putLong(arg).flip();
        CRC32 crc = new CRC32();
        crc.update(canonical);
        return (int) crc.getValue();
    }

    /**
     * Reads a body from a request stream and verifies it: every value within the GIOP message where the ORB
     * tells its end, and the check value.
     *
     * @param in the request stream, positioned at the body
     * @return the body
     * @throws Malformed if the body is short, unreadable or does not match its check value
     */
    static MonitorRequestBody read(InputStream in) throws Malformed {
        MonitorRequestBody body;
        int check;
        try {
            body = new MonitorRequestBody(in.read_long(), in.read_long(), in.read_longlong(), in.read_longlong(),
                    in.read_longlong());
            check = in.read_ulong();
        } catch (RuntimeException e) { // MARSHAL past the end (GlassFish); JacORB past its buffer's end
            throw new Malformed("unreadable (" + e + ")");
        }
        OptionalInt left = GiopBodyEnd.bytesLeft(in);
        if (left.isPresent() && left.getAsInt() < 0) {
            throw new Malformed("truncated: the GIOP message ends " + -left.getAsInt() + " bytes before the end of"
                    + " its check value");
        }
        return body.verified(check);
    }

    /**
     * This body if {@code check} is its check value.
     *
     * @param check the check value received
     * @return this body
     * @throws Malformed if it does not match
     */
    MonitorRequestBody verified(int check) throws Malformed {
        int expected = check();
        if (check != expected) {
            throw new Malformed(String.format("check value 0x%08x does not match the values (0x%08x): truncated or"
                    + " corrupted, or written by a dthreads that did not send one", check, expected));
        }
        return this;
    }
}
