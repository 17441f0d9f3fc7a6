package org.dthreads.iiop.support;

import org.dthreads.iiop.internal.IdentityContext;
import org.omg.CORBA.LocalObject;
import org.omg.IOP.ServiceContext;
import org.omg.PortableInterceptor.ClientRequestInfo;
import org.omg.PortableInterceptor.ORBInitInfo;
import org.omg.PortableInterceptor.ORBInitializer;

/** Test-only client interceptor that sends {@link #body} verbatim as context 0x44540001 (null: none). */
public final class RawContextInitializer extends LocalObject implements ORBInitializer {

    private static final long serialVersionUID = 1L;

    public static final String PROPERTY = "org.omg.PortableInterceptor.ORBInitializerClass." + RawContextInitializer.class.getName();

    public static volatile byte[] body;

    /** The body of a site hello context (0x44540002) to add too, or null. */
    public static volatile byte[] hello;

    @Override
    public void pre_init(ORBInitInfo info) {
        SendRequestInterceptor.register(info, new Raw());
    }

    @Override
    public void post_init(ORBInitInfo info) {}

    private static final class Raw extends SendRequestInterceptor {
        private static final long serialVersionUID = 1L;

        Raw() {
            super("test.raw");
        }

        @Override
        public void send_request(ClientRequestInfo ri) {
            byte[] b = body;
            if (b != null) {
                ri.add_request_service_context(new ServiceContext(IdentityContext.ID, b), true);
            }
            byte[] h = hello;
            if (h != null) {
                ri.add_request_service_context(new ServiceContext(org.dthreads.iiop.internal.SiteHelloContext.ID, h), true);
            }
        }
    }
}
