package org.dthreads.iiop.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A TCP proxy on 127.0.0.1 (port 0) in front of one IIOP endpoint that keeps every byte the clients
 * send, and a GIOP request parser that decodes them independently of any ORB: the bytes that actually
 * went on the wire. Thread-safe: each connection's bytes are appended under the recorder's lock.
 */
public final class GiopRecorder implements AutoCloseable {

    /** One service context of a request. */
    public record Context(int id, byte[] data) {}

    /**
     * One GIOP Request message.
     *
     * @param message the whole message, header included
     * @param bodyAt where the body starts in {@code message} (GIOP 1.2: 8-aligned if there is one)
     */
    public record Request(int minor, int requestId, int responseFlags, String operation, List<Context> contexts,
            byte[] message, int bodyAt) {

        public List<Context> contexts(int id) {
            return contexts.stream().filter(c -> c.id() == id).toList();
        }

        /** A reader of the body, aligned relative to the message start as GIOP says. */
        public Cdr body() {
            Cdr c = new Cdr(message, false);
            c.pos = bodyAt;
            return c;
        }
    }

    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final List<ByteArrayOutputStream> connections = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();

    public GiopRecorder(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::acceptLoop, "giop-recorder-accept");
        t.setDaemon(true);
        t.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket target = new Socket(targetHost, targetPort);
                ByteArrayOutputStream sent = new ByteArrayOutputStream();
                synchronized (this) {
                    connections.add(sent);
                    sockets.add(client);
                    sockets.add(target);
                }
                pump(client.getInputStream(), target.getOutputStream(), sent);
                pump(target.getInputStream(), client.getOutputStream(), null);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void pump(InputStream in, OutputStream out, ByteArrayOutputStream record) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[8192];
            try {
                for (int n; (n = in.read(buf)) > 0; ) {
                    if (record != null) {
                        synchronized (this) {
                            record.write(buf, 0, n);
                        }
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // connection closed
            } finally {
                try {
                    out.close();
                } catch (IOException ignored) {
                    // closing
                }
            }
        }, "giop-recorder-pump");
        t.setDaemon(true);
        t.start();
    }

    /** The complete Request messages sent so far, per connection in order of arrival. */
    public synchronized List<Request> requests() {
        List<Request> all = new ArrayList<>();
        for (ByteArrayOutputStream c : connections) {
            all.addAll(parse(c.toByteArray()));
        }
        return all;
    }

    @Override
    public synchronized void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }

    /** The Request messages in {@code stream} (other messages skipped; a trailing partial message ignored). */
    public static List<Request> parse(byte[] stream) {
        List<Request> out = new ArrayList<>();
        int at = 0;
        while (at + 12 <= stream.length) {
            if (!new String(stream, at, 4, StandardCharsets.ISO_8859_1).equals("GIOP")) {
                throw new AssertionError("no GIOP magic at " + at);
            }
            boolean little = (stream[at + 6] & 1) != 0;
            if ((stream[at + 6] & 2) != 0) {
                throw new AssertionError("a fragmented message");
            }
            Cdr h = new Cdr(Arrays.copyOfRange(stream, at, at + 12), little);
            h.pos = 8;
            int size = h.ulong();
            if (at + 12 + size > stream.length) {
                break;
            }
            byte[] message = Arrays.copyOfRange(stream, at, at + 12 + size);
            if (stream[at + 7] == 0) {
                out.add(request(message, stream[at + 5], little));
            }
            at += 12 + size;
        }
        return out;
    }

    private static Request request(byte[] m, int minor, boolean little) {
        Cdr c = new Cdr(m, little);
        c.pos = 12;
        List<Context> contexts;
        int requestId;
        int flags;
        String operation;
        if (minor < 2) {
            contexts = contexts(c);
            requestId = c.ulong();
            flags = c.octet();
            if (minor == 1) {
                c.pos += 3;
            }
            c.octets(c.ulong()); // object key
            operation = c.string();
            c.octets(c.ulong()); // principal
        } else {
            requestId = c.ulong();
            flags = c.octet();
            c.pos += 3;
            c.align(2);
            int disposition = (short) ((m[c.pos] & 0xFF) << 8 | (m[c.pos + 1] & 0xFF));
            c.pos += 2;
            if (disposition != 0) {
                throw new AssertionError("target address disposition " + disposition);
            }
            c.octets(c.ulong()); // object key
            operation = c.string();
            contexts = contexts(c);
            if (c.pos < m.length) {
                c.align(8);
            }
        }
        if (c.pos > m.length) {
            throw new AssertionError("header longer than the message");
        }
        return new Request(minor, requestId, flags, operation, contexts, m, c.pos);
    }

    private static List<Context> contexts(Cdr c) {
        int n = c.ulong();
        List<Context> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int id = c.ulong();
            list.add(new Context(id, c.octets(c.ulong())));
        }
        return list;
    }

    /** A CDR reader over a GIOP message: alignment is relative to the message start. */
    public static final class Cdr {
        private final byte[] b;
        private final boolean little;
        public int pos;

        Cdr(byte[] b, boolean little) {
            this.b = b;
            this.little = little;
        }

        public void align(int n) {
            pos = (pos + n - 1) / n * n;
        }

        public int octet() {
            return b[pos++] & 0xFF;
        }

        public int ulong() {
            return (int) aligned(4);
        }

        public long longlong() {
            return aligned(8);
        }

        /** An aligned {@code size}-byte unsigned integer in the message's byte order. */
        private long aligned(int size) {
            align(size);
            long v = 0;
            for (int i = 0; i < size; i++) {
                v = (v << 8) | (b[pos + (little ? size - 1 - i : i)] & 0xFF);
            }
            pos += size;
            return v;
        }

        public byte[] octets(int n) {
            if (n < 0 || pos + n > b.length) {
                throw new AssertionError("length " + n + " at " + pos + " runs past the message (" + b.length + ")");
            }
            byte[] r = Arrays.copyOfRange(b, pos, pos + n);
            pos += n;
            return r;
        }

        public String string() {
            byte[] s = octets(ulong());
            return new String(s, 0, Math.max(0, s.length - 1), StandardCharsets.ISO_8859_1);
        }

        public int remaining() {
            return b.length - pos;
        }
    }
}
