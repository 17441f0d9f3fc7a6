package org.dthreads.iiop.internal;

import java.lang.reflect.Method;
import org.dthreads.ThreadClass;
import org.dthreads.internal.RateLimitedLog;
import org.dthreads.monitor.RemoteMonitorException;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.omg.CORBA.ARG_IN;
import org.omg.CORBA.ARG_OUT;
import org.omg.CORBA.Any;
import org.omg.CORBA.NVList;
import org.omg.CORBA.ORB;
import org.omg.CORBA.ServerRequest;
import org.omg.CORBA.TCKind;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.OutputStream;
import org.omg.CORBA.portable.ResponseHandler;
import org.omg.PortableServer.Servant;

/**
 * The site side of remote monitors over IIOP: serves a {@value MonitorRequestHook#OPERATION} request that a
 * patched skeleton (or, through the DSI, a patched {@code DynamicImplementation}) handed to
 * {@link MonitorRequestHook}. Reads the body, runs the operation with
 * {@link RemoteMonitorSite#serve} on the ORB thread serving the request (which blocks there as a local
 * entrant or waiter would), and writes the reply. Encoding: {@code docs/wire-format.md}, "Remote monitor
 * operations over IIOP". Op {@link RemoteMonitorSite#SITE_HELLO} is about the site, not the object: answered by
 * {@link SiteHelloRequests#answer} before the servant's object is looked at.
 *
 * <p>Never throws to the ORB: a malformed body or an operation the site refuses gets an error reply (and a
 * rate-limited log line for malformed requests). A body is malformed unless it reads whole, within the GIOP
 * message where the ORB tells its end, and matches its check value ({@link MonitorRequestBody}): nothing of a
 * malformed body is run.
 *
 * <h2>The object whose monitor is meant</h2>
 * The servant the request was dispatched to, except for ties: an RMI-IIOP tie ({@code javax.rmi.CORBA.Tie},
 * e.g. the GlassFish ORB's {@code ReflectiveTie}) stands for its {@code getTarget()}, an IDL POA tie (a
 * public no-argument {@code _delegate()} method, as the IDL-to-Java mapping generates) for its delegate.
 * That is the object the servant's own {@code synchronized} methods lock.
 *
 * <h2>Peer</h2>
 * A portable skeleton cannot see the client's address. On JacORB and the GlassFish ORB the response handler
 * is the ORB's request object, whose connection has the socket: the peer passed to {@code serve} is then
 * {@code "iiop /127.0.0.1:40422"} (found by reflection on public methods, per request: the operation is a
 * network round trip already); on other ORBs, or if that fails, it is the site of the request's thread class
 * ({@code "iiop site 0000002a"}).
 */
public final class MonitorRequests implements MonitorRequestHook.Server {

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(MonitorRequests.class);

    private static final MonitorRequests INSTANCE = new MonitorRequests();

    private static final ClassValue<Method> TARGET_ACCESSOR = new ClassValue<>() {
        @Override
        protected Method computeValue(Class<?> type) {
            return targetAccessor(type);
        }
    };

    private MonitorRequests() {}

    /** Registers the server with the hook (idempotent; the first ORB's classes win). */
    public static void install() {
        MonitorRequestHook.install(INSTANCE);
    }

    @Override
    public Object serve(Object servant, Object in, Object handler) {
        return serve(servant, (InputStream) in, (ResponseHandler) handler);
    }

    /**
     * Serves one request.
     *
     * @param servant the skeleton or tie ({@code this} of its {@code _invoke})
     * @param in the request body
     * @param handler the ORB's response handler
     * @return the reply
     */
    public static OutputStream serve(Object servant, InputStream in, ResponseHandler handler) {
        MonitorRequestBody body;
        try {
            body = MonitorRequestBody.read(in);
        } catch (MonitorRequestBody.Malformed e) {
            return reply(handler, malformed(e.getMessage(), handler));
        }
        return reply(handler, run(servant, body, handler));
    }

    @Override
    public boolean serveDynamic(Object servant, Object request) {
        // any class declaring invoke(ServerRequest) is patched: serve only a real servant's request
        return servant instanceof Servant s && request instanceof ServerRequest r && serveDynamic(s, r);
    }

    /**
     * Serves one request that reached a DSI servant: the same body and reply as {@link #serve}, read and
     * written through the DSI: the five values and the check value as IN arguments, the status as the result,
     * the value or message after it as an OUT argument (marshalled after the result, as the stream reply has
     * it). On JacORB the body is then read once more from the request's stream, which is bounded by the GIOP
     * message there (see {@link MonitorRequestBody}).
     *
     * @param servant the DSI servant
     * @param request the request
     * @return true if it was a monitor request (answered), false otherwise
     */
    static boolean serveDynamic(Servant servant, ServerRequest request) {
        if (!MonitorRequestHook.OPERATION.equals(request.operation())) {
            return false;
        }
        ORB orb = servant._orb();
        NVList args = orb.create_list(7);
        Any op = in(orb, args, "op", TCKind.tk_long);
        Any nanos = in(orb, args, "nanos", TCKind.tk_long);
        Any cls = in(orb, args, "threadClass", TCKind.tk_longlong);
        Any token = in(orb, args, "token", TCKind.tk_longlong);
        Any arg = in(orb, args, "arg", TCKind.tk_longlong);
        Any check = in(orb, args, "check", TCKind.tk_ulong);
        Any value = orb.create_any();
        args.add_value("value", value, ARG_OUT.value);
        Outcome outcome;
        try {
            request.arguments(args);
            InputStream bounded = GiopBodyEnd.dsiStream(request);
            MonitorRequestBody body = bounded != null ? MonitorRequestBody.read(bounded)
                    : new MonitorRequestBody(op.extract_long(), nanos.extract_long(), cls.extract_longlong(),
                            token.extract_longlong(), arg.extract_longlong()).verified(check.extract_ulong());
            outcome = run(servant, body, request);
        } catch (MonitorRequestBody.Malformed e) {
            outcome = malformed(e.getMessage(), request);
        } catch (RuntimeException e) { // MARSHAL, BAD_OPERATION: a truncated or mistyped body
            outcome = malformed("unreadable (" + e + ")", request);
        }
        Any status = orb.create_any();
        status.insert_long(outcome.status);
        request.set_result(status);
        if (outcome.status == MonitorWire.OK && outcome.text == null) {
            value.insert_longlong(outcome.result);
        } else {
            value.insert_string(outcome.text);
        }
        return true;
    }

    private static Any in(ORB orb, NVList args, String name, TCKind kind) {
        Any a = orb.create_any();
        a.type(orb.get_primitive_tc(kind));
        args.add_value(name, a, ARG_IN.value);
        return a;
    }

    /**
     * The reply to one request: a status of {@link MonitorWire}, and the result (OK), the text result (OK, an
     * operation answered with text) or the message (an error) as {@code text}.
     */
    private record Outcome(int status, long result, String text) {
        static Outcome error(int status, String message) {
            return new Outcome(status, 0L, MonitorWire.clip(message));
        }
    }

    /** A body not to serve: a rate-limited line and an error reply, nothing run. */
    private static Outcome malformed(String reason, Object handler) {
        String address = addressOf(handler);
        String msg = "dthreads: malformed " + MonitorRequestHook.OPERATION + " request"
                + (address != null ? " from " + address : "") + ", not served: " + reason + "; expected "
                + MonitorRequestBody.LAYOUT;
        LOG.warn("malformed-monitor-request", msg);
        return Outcome.error(MonitorWire.REFUSED, msg);
    }

    /** Runs one verified request on the servant's object. */
    private static Outcome run(Object servant, MonitorRequestBody body, Object handler) {
        int op = body.op();
        int nanos = body.nanos();
        long cls = body.threadClass();
        long token = body.token();
        long arg = body.arg();
        if (op == RemoteMonitorSite.SITE_HELLO) { // about the site, not the object
            return new Outcome(MonitorWire.OK, 0L, SiteHelloRequests.answer(cls, token, peerOf(handler, cls)));
        }
        Object target;
        try {
            target = target(servant);
        } catch (RuntimeException e) {
            return Outcome.error(MonitorWire.REFUSED, "dthreads: cannot find the object of servant "
                    + servant.getClass().getName() + ": " + e);
        }
        try {
            if (op == RemoteMonitorSite.PROBE_EDGES) { // answered with text
                return new Outcome(MonitorWire.OK, 0L, RemoteMonitorSite.serveText(op, cls, token, arg, nanos,
                        peerOf(handler, cls)));
            }
            return new Outcome(MonitorWire.OK, RemoteMonitorSite.serve(target, op, cls, token, arg, nanos,
                    peerOf(handler, cls)), null);
        } catch (InterruptedException e) {
            return Outcome.error(MonitorWire.INTERRUPTED, message(e));
        } catch (IllegalMonitorStateException e) {
            return Outcome.error(MonitorWire.ILLEGAL_MONITOR_STATE, message(e));
        } catch (IllegalArgumentException e) {
            if (op < RemoteMonitorSite.ENTER || op > RemoteMonitorSite.SITE_HELLO) {
                LOG.warn("unknown-monitor-op", "dthreads: " + MonitorRequestHook.OPERATION + " request with unknown"
                        + " operation code " + op + " answered with an error");
            }
            return Outcome.error(MonitorWire.ILLEGAL_ARGUMENT, message(e));
        } catch (NullPointerException e) {
            return Outcome.error(MonitorWire.NULL_POINTER, message(e));
        } catch (RemoteMonitorException e) {
            return Outcome.error(MonitorWire.REFUSED, message(e));
        } catch (RuntimeException e) {
            LOG.error("monitor-request-failed", "dthreads: serving a remote monitor operation failed: " + e);
            return Outcome.error(MonitorWire.REFUSED, "dthreads: the site failed to serve the monitor operation: " + e);
        }
    }

    private static OutputStream reply(ResponseHandler handler, Outcome outcome) {
        OutputStream out = handler.createReply();
        out.write_long(outcome.status);
        if (outcome.status == MonitorWire.OK && outcome.text == null) {
            out.write_longlong(outcome.result);
        } else {
            out.write_string(outcome.text);
        }
        return out;
    }

    /** The client's address from the ORB's request object, or the class's site (see "Peer"). */
    static String peerOf(Object handler, long cls) {
        String address = addressOf(handler);
        return address != null ? address : "iiop site " + String.format("%08x", ThreadClass.siteId(cls));
    }

    /** {@code "iiop /127.0.0.1:40422"} from the ORB's request object, or null (see "Peer"). */
    private static String addressOf(Object handler) {
        try {
            Object connection = handler.getClass().getMethod("getConnection").invoke(handler);
            Object socket = socketOf(connection);
            if (socket == null) {
                socket = socketOf(connection.getClass().getMethod("getTransport").invoke(connection));
            }
            if (socket instanceof java.net.Socket s) {
                return "iiop " + s.getRemoteSocketAddress();
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            // not an ORB we know
        }
        return null;
    }

    private static Object socketOf(Object connection) throws ReflectiveOperationException {
        try {
            return connection.getClass().getMethod("getSocket").invoke(connection);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    private static String message(Throwable t) {
        return t.getMessage() != null ? t.getMessage() : t.getClass().getName();
    }

    /** The object whose monitor a request on {@code servant} means (see the class comment). */
    static Object target(Object servant) {
        Method m = TARGET_ACCESSOR.get(servant.getClass());
        if (m == null) {
            return servant;
        }
        try {
            Object t = m.invoke(servant);
            return t != null ? t : servant;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(m + " failed", e);
        }
    }

    private static Method targetAccessor(Class<?> type) {
        try {
            if (implementsNamed(type, "javax.rmi.CORBA.Tie")) {
                Method m = type.getMethod("getTarget");
                m.setAccessible(true);
                return m;
            }
            Method d = type.getMethod("_delegate");
            if (d.getParameterCount() == 0 && !d.getReturnType().isPrimitive()) {
                return d;
            }
        } catch (NoSuchMethodException | RuntimeException e) {
            // a plain skeleton: the servant itself
        }
        return null;
    }

    private static boolean implementsNamed(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                if (i.getName().equals(name) || implementsNamed(i, name)) {
                    return true;
                }
            }
        }
        return false;
    }
}
