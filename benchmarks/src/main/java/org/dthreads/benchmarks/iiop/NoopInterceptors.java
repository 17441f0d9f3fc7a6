package org.dthreads.benchmarks.iiop;

import org.omg.CORBA.LocalObject;
import org.omg.PortableInterceptor.ClientRequestInfo;
import org.omg.PortableInterceptor.ClientRequestInterceptor;
import org.omg.PortableInterceptor.ORBInitInfo;
import org.omg.PortableInterceptor.ORBInitializer;
import org.omg.PortableInterceptor.ServerRequestInfo;
import org.omg.PortableInterceptor.ServerRequestInterceptor;

/**
 * Empty client and server request interceptors: the cost of turning Portable Interceptors on in
 * an ORB, without any work in them. Separates the ORB's own PI machinery from dthreads' work.
 */
public final class NoopInterceptors extends LocalObject implements ORBInitializer {

    private static final long serialVersionUID = 1L;

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
        @Override public String name() { return "noop.client"; }
        @Override public void destroy() {}
        @Override public void send_request(ClientRequestInfo ri) {}
        @Override public void send_poll(ClientRequestInfo ri) {}
        @Override public void receive_reply(ClientRequestInfo ri) {}
        @Override public void receive_exception(ClientRequestInfo ri) {}
        @Override public void receive_other(ClientRequestInfo ri) {}
    }

    static final class Server extends LocalObject implements ServerRequestInterceptor {
        private static final long serialVersionUID = 1L;
        @Override public String name() { return "noop.server"; }
        @Override public void destroy() {}
        @Override public void receive_request_service_contexts(ServerRequestInfo ri) {}
        @Override public void receive_request(ServerRequestInfo ri) {}
        @Override public void send_reply(ServerRequestInfo ri) {}
        @Override public void send_exception(ServerRequestInfo ri) {}
        @Override public void send_other(ServerRequestInfo ri) {}
    }
}
