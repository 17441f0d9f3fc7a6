package org.dthreads.iiop.support;

import org.omg.CORBA.LocalObject;
import org.omg.PortableInterceptor.ClientRequestInfo;
import org.omg.PortableInterceptor.ClientRequestInterceptor;
import org.omg.PortableInterceptor.ORBInitInfo;

/** Test-only: a client interceptor that acts at {@code send_request} only (every other point does nothing). */
public abstract class SendRequestInterceptor extends LocalObject implements ClientRequestInterceptor {

    private static final long serialVersionUID = 1L;

    private final String name;

    protected SendRequestInterceptor(String name) {
        this.name = name;
    }

    /** Registers {@code interceptor} from an initializer's {@code pre_init}. */
    public static void register(ORBInitInfo info, SendRequestInterceptor interceptor) {
        try {
            info.add_client_request_interceptor(interceptor);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public void destroy() {}

    @Override
    public abstract void send_request(ClientRequestInfo ri);

    @Override
    public void send_poll(ClientRequestInfo ri) {}

    @Override
    public void receive_reply(ClientRequestInfo ri) {}

    @Override
    public void receive_exception(ClientRequestInfo ri) {}

    @Override
    public void receive_other(ClientRequestInfo ri) {}
}
