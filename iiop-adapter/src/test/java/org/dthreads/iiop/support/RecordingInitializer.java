package org.dthreads.iiop.support;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.dthreads.iiop.internal.IdentityContext;
import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.LocalObject;
import org.omg.PortableInterceptor.ForwardRequest;
import org.omg.PortableInterceptor.ORBInitInfo;
import org.omg.PortableInterceptor.ORBInitializer;
import org.omg.PortableInterceptor.ServerRequestInfo;
import org.omg.PortableInterceptor.ServerRequestInterceptor;

/**
 * Test-only server interceptor: records the class each arriving request carries, and forwards
 * requests for the object id {@link #forwardFrom} to {@link #forwardTo} (LOCATION_FORWARD).
 */
public final class RecordingInitializer extends LocalObject implements ORBInitializer {

    private static final long serialVersionUID = 1L;

    public static final String PROPERTY = "org.omg.PortableInterceptor.ORBInitializerClass." + RecordingInitializer.class.getName();

    /** "operation class-in-hex" per request, in arrival order. */
    public static final List<String> RECORDED = new CopyOnWriteArrayList<>();
    public static volatile byte[] forwardFrom;
    public static volatile org.omg.CORBA.Object forwardTo;

    @Override
    public void pre_init(ORBInitInfo info) {
        try {
            info.add_server_request_interceptor(new Recorder());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void post_init(ORBInitInfo info) {}

    private static final class Recorder extends LocalObject implements ServerRequestInterceptor {
        private static final long serialVersionUID = 1L;

        @Override
        public String name() {
            return "test.recorder";
        }

        @Override
        public void destroy() {}

        @Override
        public void receive_request_service_contexts(ServerRequestInfo ri) {}

        @Override
        public void receive_request(ServerRequestInfo ri) throws ForwardRequest {
            long c;
            try {
                c = IdentityContext.decode(ri.get_request_service_context(IdentityContext.ID).context_data);
            } catch (BAD_PARAM absent) {
                c = 0;
            }
            RECORDED.add(ri.operation() + " " + Long.toHexString(c));
            byte[] from = forwardFrom;
            if (from != null && Arrays.equals(from, ri.object_id())) {
                throw new ForwardRequest(forwardTo);
            }
        }

        @Override
        public void send_reply(ServerRequestInfo ri) {}

        @Override
        public void send_exception(ServerRequestInfo ri) {}

        @Override
        public void send_other(ServerRequestInfo ri) {}
    }
}
