package org.dthreads.iiop.internal;

import java.lang.reflect.Method;
import org.dthreads.ThreadClass;
import org.dthreads.internal.RateLimitedLog;
import org.dthreads.monitor.RemoteMonitorException;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.OutputStream;
import org.omg.CORBA.portable.ResponseHandler;

/**
 * The site side of remote monitors over IIOP: serves a {@value MonitorRequestHook#OPERATION} request that a
 * patched skeleton handed to {@link MonitorRequestHook}. Reads the body, runs the operation with
 * {@link RemoteMonitorSite#serve} on the ORB thread serving the request (which blocks there as a local
 * entrant or waiter would), and writes the reply. Encoding: {@code docs/wire-format.md}, "Remote monitor
 * operations over IIOP".
 *
 * <p>Never throws to the ORB: a malformed body or an operation the site refuses gets an error reply (and a
 * rate-limited log line for malformed requests).
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
 * {@code "iiop /127.0.0.1:40422"} (found by reflection on public methods, cached per handler class); on
 * other ORBs, or if that fails, it is the site of the request's thread class ({@code "iiop site 0000002a"}).
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
        int op;
        int nanos;
        long cls;
        long token;
        long arg;
        try {
            op = in.read_long();
            nanos = in.read_long();
            cls = in.read_longlong();
            token = in.read_longlong();
            arg = in.read_longlong();
        } catch (RuntimeException e) { // MARSHAL (a SystemException) for a truncated body
            String msg = "dthreads: malformed " + MonitorRequestHook.OPERATION + " request (" + e
                    + "); expected long op, long nanos, long long class, long long token, long long arg";
            LOG.warn("malformed-monitor-request", msg);
            return error(handler, MonitorWire.REFUSED, msg);
        }
        Object target;
        try {
            target = target(servant);
        } catch (RuntimeException e) {
            return error(handler, MonitorWire.REFUSED, "dthreads: cannot find the object of servant "
                    + servant.getClass().getName() + ": " + e);
        }
        long result;
        try {
            result = RemoteMonitorSite.serve(target, op, cls, token, arg, nanos, peerOf(handler, cls));
        } catch (InterruptedException e) {
            return error(handler, MonitorWire.INTERRUPTED, message(e));
        } catch (IllegalMonitorStateException e) {
            return error(handler, MonitorWire.ILLEGAL_MONITOR_STATE, message(e));
        } catch (IllegalArgumentException e) {
            if (op < RemoteMonitorSite.ENTER || op > RemoteMonitorSite.INTERRUPT) {
                LOG.warn("unknown-monitor-op", "dthreads: " + MonitorRequestHook.OPERATION + " request with unknown"
                        + " operation code " + op + " answered with an error");
            }
            return error(handler, MonitorWire.ILLEGAL_ARGUMENT, message(e));
        } catch (NullPointerException e) {
            return error(handler, MonitorWire.NULL_POINTER, message(e));
        } catch (RemoteMonitorException e) {
            return error(handler, MonitorWire.REFUSED, message(e));
        } catch (RuntimeException e) {
            LOG.error("monitor-request-failed", "dthreads: serving a remote monitor operation failed: " + e);
            return error(handler, MonitorWire.REFUSED, "dthreads: the site failed to serve the monitor operation: " + e);
        }
        OutputStream out = handler.createReply();
        out.write_long(MonitorWire.OK);
        out.write_longlong(result);
        return out;
    }

    /** The client's address from the ORB's request object, or the class's site (see "Peer"). */
    static String peerOf(Object handler, long cls) {
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
            // not an ORB we know: fall back to the class's site
        }
        return "iiop site " + String.format("%08x", ThreadClass.siteId(cls));
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

    private static OutputStream error(ResponseHandler handler, int status, String message) {
        OutputStream out = handler.createReply();
        out.write_long(status);
        out.write_string(MonitorWire.clip(message));
        return out;
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
