package org.dthreads.iiop.support;

import org.omg.CORBA.LocalObject;
import org.omg.IOP.ServiceContext;
import org.omg.PortableInterceptor.ClientRequestInfo;
import org.omg.PortableInterceptor.ORBInitInfo;
import org.omg.PortableInterceptor.ORBInitializer;

/** Test-only: an application's client interceptor that adds a context of its own ({@link #ID}, {@link #BODY}) to every request. */
public final class ExtraContextInitializer extends LocalObject implements ORBInitializer {

    private static final long serialVersionUID = 1L;

    public static final String PROPERTY = "org.omg.PortableInterceptor.ORBInitializerClass." + ExtraContextInitializer.class.getName();
    public static final int ID = 0x7E570001;
    /** Five bytes: an odd length, so whatever follows in the header is realigned. */
    public static final byte[] BODY = {0, 1, 2, 3, 4};

    @Override
    public void pre_init(ORBInitInfo info) {
        SendRequestInterceptor.register(info, new Extra());
    }

    @Override
    public void post_init(ORBInitInfo info) {}

    private static final class Extra extends SendRequestInterceptor {
        private static final long serialVersionUID = 1L;

        Extra() {
            super("test.extra");
        }

        @Override
        public void send_request(ClientRequestInfo ri) {
            ri.add_request_service_context(new ServiceContext(ID, BODY.clone()), true);
        }
    }
}
