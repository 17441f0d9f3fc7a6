package org.dthreads.benchmarks.iiop;

import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.LocalObject;
import org.omg.IOP.ServiceContext;
import org.omg.PortableInterceptor.ClientRequestInfo;
import org.omg.PortableInterceptor.ClientRequestInterceptor;
import org.omg.PortableInterceptor.ORBInitInfo;
import org.omg.PortableInterceptor.ORBInitializer;
import org.omg.PortableInterceptor.ServerRequestInfo;
import org.omg.PortableInterceptor.ServerRequestInterceptor;

/**
 * Interceptors that only carry a constant 16-byte service context (add it on the client, fetch it
 * on the server) and do nothing else: what any context-propagating interceptor pays the ORB.
 * dthreads' own work is the difference between this and {@code DThreadsOrbInitializer}.
 */
public final class RawContextInterceptors extends LocalObject implements ORBInitializer {

    private static final long serialVersionUID = 1L;
    private static final int ID = 0x44540001;
    private static final byte[] BODY = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 42, 0, 0, 0, 7};

    @Override
    public void pre_init(ORBInitInfo info) {
        try {
            info.add_client_request_interceptor(new Client());
            info.add_server_request_interceptor(new Server());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void post_init(ORBInitInfo info) {}

    static final class Client extends LocalObject implements ClientRequestInterceptor {
        private static final long serialVersionUID = 1L;
        @Override public String name() { return "raw.client"; }
        @Override public void destroy() {}
        @Override public void send_request(ClientRequestInfo ri) {
            ri.add_request_service_context(new ServiceContext(ID, BODY), true);
        }
        @Override public void send_poll(ClientRequestInfo ri) {}
        @Override public void receive_reply(ClientRequestInfo ri) {}
        @Override public void receive_exception(ClientRequestInfo ri) {}
        @Override public void receive_other(ClientRequestInfo ri) {}
    }

    static final class Server extends LocalObject implements ServerRequestInterceptor {
        private static final long serialVersionUID = 1L;
        static volatile int sink;
        @Override public String name() { return "raw.server"; }
        @Override public void destroy() {}
        @Override public void receive_request_service_contexts(ServerRequestInfo ri) {}
        @Override public void receive_request(ServerRequestInfo ri) {
            try {
                sink = ri.get_request_service_context(ID).context_data.length;
            } catch (BAD_PARAM absent) {
                sink = 0;
            }
        }
        @Override public void send_reply(ServerRequestInfo ri) {}
        @Override public void send_exception(ServerRequestInfo ri) {}
        @Override public void send_other(ServerRequestInfo ri) {}
    }
}
