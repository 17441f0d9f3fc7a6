package org.dthreads.iiop.internal;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.OptionalInt;
import org.dthreads.internal.RateLimitedLog;

/**
 * Where the GIOP message a request stream reads from ends, on ORBs whose streams do not stop there themselves.
 *
 * <p>JacORB 3.9 reads a message into a buffer from its pool (sized in powers of two, reused without clearing) and
 * its {@code CDRInputStream} checks reads against the buffer's length, not the message's: a read past the end of
 * a short body returns what an earlier message left in the buffer. Its message streams
 * ({@code org.jacorb.orb.giop.MessageInputStream}) do carry the GIOP header's message size (public field
 * {@code msg_size}, the size after the 12-byte header) and the read position in that buffer (public
 * {@code get_pos()}, counted from the header's first byte), so the bytes of the body left after a read are
 * {@code 12 + msg_size - get_pos()}; negative means the read went past the end. A DSI request's stream is
 * {@code org.jacorb.orb.dsi.ServerRequest.get_in()} (public). Fragments are reassembled into one message with the
 * total size before a stream sees them.
 *
 * <p>The GlassFish ORB needs nothing here: its streams end at the message (reading past it throws
 * {@code MARSHAL}). Other ORBs: unknown, and the request's check value is what catches a short body there.
 *
 * <p>Found by reflection on public members (cached per class), never linked: this class loads with any ORB.
 * Thread-safe (immutable caches).
 */
final class GiopBodyEnd {

    static final int GIOP_HEADER_SIZE = 12;
    private static final RateLimitedLog LOG = RateLimitedLog.forClass(GiopBodyEnd.class);
    private static final String JACORB_MESSAGE_STREAM = "org.jacorb.orb.giop.MessageInputStream";
    private static final String JACORB_SERVER_REQUEST = "org.jacorb.orb.dsi.ServerRequest";

    /** JacORB's message size and read position of one stream class. */
    private record Accessors(Field messageSize, Method position) {}

    private static final ClassValue<Accessors> STREAMS = new ClassValue<>() {
        @Override
        protected Accessors computeValue(Class<?> type) {
            if (!extendsNamed(type, JACORB_MESSAGE_STREAM)) {
                return null;
            }
            try {
                return new Accessors(type.getField("msg_size"), type.getMethod("get_pos"));
            } catch (NoSuchFieldException | NoSuchMethodException | RuntimeException e) {
                missing(type, e);
                return null;
            }
        }
    };

    private static final ClassValue<Method> DSI_STREAMS = new ClassValue<>() {
        @Override
        protected Method computeValue(Class<?> type) {
            if (!extendsNamed(type, JACORB_SERVER_REQUEST)) {
                return null;
            }
            try {
                return type.getMethod("get_in");
            } catch (NoSuchMethodException | RuntimeException e) {
                missing(type, e);
                return null;
            }
        }
    };

    private GiopBodyEnd() {}

    /**
     * The bytes of the message body after {@code stream}'s read position: negative if reads went past its end.
     *
     * @param stream a request's input stream
     * @return the bytes left, or empty if the ORB does not tell (every ORB but JacORB) or telling failed
     */
    static OptionalInt bytesLeft(Object stream) {
        Accessors a = STREAMS.get(stream.getClass());
        if (a == null) {
            return OptionalInt.empty();
        }
        try {
            int end = GIOP_HEADER_SIZE + a.messageSize().getInt(stream);
            int pos = (Integer) a.position().invoke(stream);
            return OptionalInt.of(end - pos);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return OptionalInt.empty();
        }
    }

    /**
     * The stream a DSI request's arguments are read from, positioned at the start of the body once
     * {@code arguments} has run (JacORB reads them under a mark and resets to it).
     *
     * @param request an {@code org.omg.CORBA.ServerRequest}
     * @return JacORB's request stream, or null on other ORBs
     */
    static org.omg.CORBA.portable.InputStream dsiStream(Object request) {
        Method m = DSI_STREAMS.get(request.getClass());
        if (m == null) {
            return null;
        }
        try {
            return m.invoke(request) instanceof org.omg.CORBA.portable.InputStream in ? in : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static void missing(Class<?> type, Exception e) {
        LOG.warn("giop-body-end-unknown", "dthreads: cannot read the GIOP message size of " + type.getName() + " (" + e
                + "): a short " + MonitorRequestHook.OPERATION + " request is caught by its check value only");
    }

    private static boolean extendsNamed(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(name)) {
                return true;
            }
        }
        return false;
    }
}
