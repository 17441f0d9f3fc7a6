package org.dthreads.iiop.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.dthreads.internal.RateLimitedLog;
import org.jacorb.orb.CDROutputStream;
import org.jacorb.orb.giop.RequestOutputStream;
import org.jacorb.orb.giop.ServiceContextTransportingOutputStream;
import org.omg.CORBA.portable.OutputStream;
import org.omg.IOP.ServiceContext;
import org.omg.IOP.ServiceContextListHelper;
import org.omg.Messaging.SYNC_NONE;

/**
 * JacORB fast path, the identity context written in the request header itself (issue 22).
 *
 * <p>Why: JacORB writes every request header with an empty service context list; a context added later
 * ({@code addServiceContext}) makes {@code ServiceContextTransportingOutputStream.write_to} marshal the
 * list into a second stream and send the message in three pieces. So the patched
 * {@code RequestOutputStream} constructor ({@link JacorbInlinePatch}) calls {@link #writeContextList}
 * where it wrote the empty list, and on an ORB of the fast path that writes a list of one identity
 * context with a 16-byte placeholder body; {@link #put} (from {@code JacorbHooks.clientBegin}, once the
 * caller's class is known) writes the body in place. The list is an ordinary CDR list, written before
 * anything after it, so every alignment after it is JacORB's own; the message goes out whole.
 *
 * <p>JacORB's own context handling assumes the empty list it wrote. So the stream's context list is an
 * {@link Inlined} marker: empty (JacORB sees no contexts and takes its one-piece path) until anybody adds
 * a context — the code-set context of a connection's first request, an application interceptor's, the
 * site hello, a timing policy. Then, before the add, the inline list is taken out of the buffer (the
 * rest moves back 24 bytes, a multiple of 8, so every alignment stays; GIOP 1.2's {@code header_end}
 * follows) and the identity context, if {@link #put} filled it, goes first into the list: JacORB's
 * ordinary path, exactly as without the inline list. Never two identity contexts; a placeholder that
 * was never filled never leaves ({@link #abandon}). Not inlined: a stream whose constructor added a
 * context (timing policies), a SYNC_NONE oneway (JacORB copies that stream and sends the copy on another
 * thread, sharing the list).
 *
 * <p>Threading: a request stream is written by one thread at a time (the invoking thread; JacORB hands it
 * to another thread only for SYNC_NONE, which is not inlined), and the marker is confined to its stream:
 * no locking. Version guard: the three protected JacORB fields are found once; if one is missing
 * nothing is inlined (one log line) and {@link #put} adds the context to the list as before.
 */
public final class JacorbInlineContext {

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(org.dthreads.iiop.DThreadsOrbInitializer.class);

    /** The inline list: count, context id, body length, body. */
    static final int LIST_BYTES = 4 + 4 + 4 + IdentityContext.LENGTH;
    /** What the inline list adds to an empty list (4 bytes): 24, a multiple of 8. */
    static final int EXTRA_BYTES = LIST_BYTES - 4;
    private static final int BODY_OFFSET = 12;
    private static final byte[] PLACEHOLDER = new byte[IdentityContext.LENGTH];

    private static final VarHandle CONTEXTS = field(ServiceContextTransportingOutputStream.class, "contexts", List.class);
    private static final VarHandle HEADER_END = field(ServiceContextTransportingOutputStream.class, "header_end", int.class);
    private static final VarHandle BUFFER = field(CDROutputStream.class, "buffer", byte[].class);
    private static final boolean AVAILABLE = CONTEXTS != null && HEADER_END != null && BUFFER != null;

    private JacorbInlineContext() {}

    private static VarHandle field(Class<?> owner, String name, Class<?> type) {
        try {
            return MethodHandles.privateLookupIn(owner, MethodHandles.lookup()).findVarHandle(owner, name, type);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.warn("jacorb-inline-off", "dthreads: identity context not written inline (" + owner.getName() + "."
                    + name + ": " + e + "); it goes through JacORB's context list");
            return null;
        }
    }

    /**
     * Called by the patched {@code RequestOutputStream} constructor instead of
     * {@code ServiceContextListHelper.write(this, list)}: the inline list if this request qualifies,
     * otherwise exactly what JacORB writes.
     *
     * @param out the request stream under construction
     * @param list the contexts JacORB writes there (always its empty array)
     */
    public static void writeContextList(OutputStream out, ServiceContext[] list) {
        if (list != null && list.length == 0 && out instanceof RequestOutputStream ros && inlineable(ros)) {
            ros.write_ulong(1);
            int listAt = ros.size() - 4;
            ros.write_ulong(IdentityContext.ID);
            ros.write_ulong(IdentityContext.LENGTH);
            ros.write_octet_array(PLACEHOLDER, 0, PLACEHOLDER.length);
            CONTEXTS.set((ServiceContextTransportingOutputStream) ros, new Inlined(ros, listAt));
            return;
        }
        ServiceContextListHelper.write(out, list);
    }

    private static boolean inlineable(RequestOutputStream ros) {
        try {
            int minor = ros.getGIOPMinor();
            return AVAILABLE && minor >= 0 && minor <= 2 && JacorbFastPath.enabled(ros.orb())
                    && CONTEXTS.get((ServiceContextTransportingOutputStream) ros) == null
                    && (ros.response_expected() || ros.syncScope() != SYNC_NONE.value);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Whether {@code ros} still carries the inline list (tests). */
    static boolean inlined(RequestOutputStream ros) {
        return AVAILABLE && CONTEXTS.get((ServiceContextTransportingOutputStream) ros) instanceof Inlined m && m.stream != null;
    }

    /**
     * Gives the request its identity context: into the inline list if it has one, else added to
     * JacORB's list as the portable path does.
     *
     * @param ros the request stream
     * @param body the identity context's body
     */
    static void put(RequestOutputStream ros, byte[] body) {
        if (AVAILABLE && CONTEXTS.get((ServiceContextTransportingOutputStream) ros) instanceof Inlined m && m.fill(body)) {
            return;
        }
        ros.addServiceContext(new ServiceContext(IdentityContext.ID, body));
    }

    /** {@code JacorbHooks.clientBegin} failed: an inline placeholder not filled is taken out (the request goes without). */
    static void abandon(Object out) {
        try {
            if (AVAILABLE && out instanceof RequestOutputStream ros
                    && CONTEXTS.get((ServiceContextTransportingOutputStream) ros) instanceof Inlined m && !m.filled) {
                m.takeOut();
            }
        } catch (RuntimeException e) {
            // nothing more to do: the request goes as it is
        }
    }

    /**
     * The stream's context list while the inline list is in its buffer: empty for JacORB; the first add
     * takes the inline list out (see the class comment). Confined to its stream.
     */
    static final class Inlined extends ArrayList<Object> {
        private static final long serialVersionUID = 1L;

        /** The stream whose buffer holds the inline list, or null once taken out. */
        private transient RequestOutputStream stream;
        /** Where the inline list starts in the stream's buffer. */
        private final int listAt;
        /** Whether {@link #put} wrote the body. */
        private boolean filled;

        Inlined(RequestOutputStream stream, int listAt) {
            this.stream = stream;
            this.listAt = listAt;
        }

        boolean fill(byte[] body) {
            if (body == null || body.length != IdentityContext.LENGTH) {
                takeOut();
                return false;
            }
            if (stream != null) {
                System.arraycopy(body, 0, buffer(stream), listAt + BODY_OFFSET, body.length);
                filled = true;
                return true;
            }
            for (int i = 0; i < size(); i++) { // taken out already: replace, never a second identity context
                if (get(i) instanceof ServiceContext sc && sc.context_id == IdentityContext.ID) {
                    set(i, new ServiceContext(IdentityContext.ID, body));
                    return true;
                }
            }
            return false;
        }

        /** Takes the inline list out of the buffer, leaving JacORB's empty list; the identity context joins this list. */
        void takeOut() {
            RequestOutputStream s = stream;
            if (s == null) {
                return;
            }
            stream = null;
            byte[] buf = buffer(s);
            if (buf == null) {
                return; // already sent and closed
            }
            byte[] body = filled ? Arrays.copyOfRange(buf, listAt + BODY_OFFSET, listAt + LIST_BYTES) : null;
            int rest = listAt + LIST_BYTES;
            System.arraycopy(buf, rest, buf, listAt + 4, s.size() - rest);
            Arrays.fill(buf, listAt, listAt + 4, (byte) 0); // count 0
            s.reduceSize(EXTRA_BYTES);
            if (s.getGIOPMinor() == 2) {
                ServiceContextTransportingOutputStream t = s;
                HEADER_END.set(t, (int) HEADER_END.get(t) - EXTRA_BYTES);
            }
            if (body != null) {
                super.add(new ServiceContext(IdentityContext.ID, body));
            }
        }

        private static byte[] buffer(RequestOutputStream s) {
            return (byte[]) BUFFER.get((CDROutputStream) s);
        }

        @Override
        public boolean add(Object e) {
            takeOut();
            return super.add(e);
        }

        @Override
        public void add(int index, Object e) {
            takeOut();
            super.add(index, e);
        }

        @Override
        public boolean addAll(Collection<?> c) {
            takeOut();
            return super.addAll(c);
        }

        @Override
        public boolean addAll(int index, Collection<?> c) {
            takeOut();
            return super.addAll(index, c);
        }
    }
}
