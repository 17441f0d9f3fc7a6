package org.dthreads.iiop.internal;

/**
 * What a patched skeleton or DSI servant calls (see {@link ServantInvokePatch}) when a request for the monitor operation
 * {@value #OPERATION} arrives. On the bootstrap class path (the agent puts it there), so every servant's
 * class loader reaches one copy; it therefore uses JDK types only, and the ORB-facing part
 * ({@link MonitorRequests}, loaded with the application's ORB) registers itself here when
 * {@code DThreadsOrbInitializer} initializes an ORB.
 *
 * <p>No server registered (the agent runs but no ORB has the dthreads initializer): {@link #serve} returns
 * {@code null} and the skeleton answers the request as it answers any unknown operation, which the client
 * reports as "the site does not run dthreads".
 */
public final class MonitorRequestHook {

    /**
     * The GIOP operation name of a remote monitor request. A leading underscore is reserved for implicit
     * operations, so no IDL operation can have this name; RMI-IIOP mangles Java names starting with an
     * underscore to {@code J_...}, so no remote method maps to it either.
     */
    public static final String OPERATION = "_dthreads_monitor";

    /** The ORB-facing server. */
    public interface Server {
        /**
         * Serves one request.
         *
         * @param servant the skeleton or tie the request was dispatched to ({@code this} of its {@code _invoke})
         * @param in the request body, an {@code org.omg.CORBA.portable.InputStream}
         * @param handler the {@code org.omg.CORBA.portable.ResponseHandler}
         * @return the reply, an {@code org.omg.CORBA.portable.OutputStream}; never null
         */
        Object serve(Object servant, Object in, Object handler);

        /**
         * Serves one request that reached a DSI servant ({@code DynamicImplementation.invoke}), if it is a
         * monitor request.
         *
         * @param servant the DSI servant ({@code this} of its {@code invoke})
         * @param request the {@code org.omg.CORBA.ServerRequest}
         * @return true if the request was a monitor request and has been answered
         */
        boolean serveDynamic(Object servant, Object request);
    }

    private static volatile Server server;

    private MonitorRequestHook() {}

    /**
     * Registers the server; the first registration wins (one per JVM: the ORB classes of the first ORB
     * initialized with dthreads).
     *
     * @param s the server
     */
    public static synchronized void install(Server s) {
        if (server == null) {
            server = s;
        }
    }

    /**
     * Called by the patched {@code _invoke} for operation {@value #OPERATION}.
     *
     * @param servant {@code this} of the skeleton
     * @param in the request body
     * @param handler the response handler
     * @return the reply stream, or {@code null} if no server is registered (the skeleton then goes on as
     *         for any operation it does not know)
     */
    public static Object serve(Object servant, Object in, Object handler) {
        Server s = server;
        return s == null ? null : s.serve(servant, in, handler);
    }

    /**
     * Called by a patched DSI servant's {@code invoke(ServerRequest)} for operation {@value #OPERATION}.
     *
     * @param servant {@code this} of the DSI servant
     * @param request the {@code org.omg.CORBA.ServerRequest}
     * @return true if the request was answered; false if no server is registered (the servant then goes on
     *         as for any operation it does not know)
     */
    public static boolean serveDynamic(Object servant, Object request) {
        Server s = server;
        return s != null && s.serveDynamic(servant, request);
    }
}
