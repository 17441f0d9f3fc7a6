package example.callbacks.iiop;

import org.omg.CORBA.Any;
import org.omg.CORBA.LocalObject;
import org.omg.PortableInterceptor.InvalidSlot;
import org.omg.PortableInterceptor.ORBInitInfo;
import org.omg.PortableInterceptor.ORBInitializer;
import org.omg.PortableInterceptor.ServerRequestInfo;
import org.omg.PortableInterceptor.ServerRequestInterceptor;

/**
 * A foreign ORB initializer of the kind tracing libraries register: it allocates a PICurrent slot and a server
 * request interceptor fills it with the operation of each request, so the servant reads it from its thread's
 * PICurrent. Such an interceptor relies on thread-scope PICurrent: dthreads keeps an ORB that has it in take-over
 * mode and says so ({@code IiopOriginalThreadBiDirTest}).
 */
public final class SlotTracingInitializer extends LocalObject implements ORBInitializer {

    private static final long serialVersionUID = 1L;

    @Override
    public void pre_init(ORBInitInfo info) {}

    @Override
    public void post_init(ORBInitInfo info) {
        try {
            info.add_server_request_interceptor(new Tracer(info.allocate_slot_id()));
        } catch (org.omg.PortableInterceptor.ORBInitInfoPackage.DuplicateName e) {
            throw new IllegalStateException(e);
        }
    }

    /** Puts the operation into its slot. */
    public static final class Tracer extends LocalObject implements ServerRequestInterceptor {
        private static final long serialVersionUID = 1L;
        private final int slot;

        Tracer(int slot) {
            this.slot = slot;
        }

        @Override
        public void receive_request_service_contexts(ServerRequestInfo ri) {
            try {
                Any any = org.omg.CORBA.ORB.init().create_any();
                any.insert_string(ri.operation());
                ri.set_slot(slot, any);
            } catch (InvalidSlot e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void receive_request(ServerRequestInfo ri) {}

        @Override
        public void send_reply(ServerRequestInfo ri) {}

        @Override
        public void send_exception(ServerRequestInfo ri) {}

        @Override
        public void send_other(ServerRequestInfo ri) {}

        @Override
        public String name() {
            return "slot-tracer";
        }

        @Override
        public void destroy() {}
    }
}
