package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;
import org.dthreads.iiop.support.Orbs;
import org.omg.CORBA.LocalObject;
import org.omg.CORBA.ORB;
import org.omg.PortableInterceptor.ORBInitInfo;
import org.omg.PortableInterceptor.ORBInitializer;
import org.omg.PortableInterceptor.ServerRequestInfo;
import org.omg.PortableInterceptor.ServerRequestInterceptor;
import org.junit.jupiter.api.Test;

/** {@link JacorbInterceptorRule} on real JacORB ORBs: which interceptors keep an ORB in take-over mode, and why. */
class JacorbInterceptorRuleTest {

    private static final String PREFIX = "org.omg.PortableInterceptor.ORBInitializerClass.";
    private static final String BIDIR = "org.jacorb.orb.giop.BiDirConnectionInitializer";

    @Test
    void jacorbsBiDirInterceptorsAloneLetTheOrbMove() {
        withOrb(props(BIDIR), orb -> {
            assertTrue(orb.hasClientRequestInterceptors() && orb.hasServerRequestInterceptors());
            assertNull(JacorbInterceptorRule.blocker(orb));
            assertTrue(JacorbInterceptorRule.clientMovable(orb));
            assertTrue(JacorbInterceptorRule.serverMovable(orb));
        });
    }

    @Test
    void aForeignInterceptorUsingPicurrentKeepsItsSideInTakeOverModeAndIsNamed() {
        withOrb(props(BIDIR, SlotUser.class.getName()), orb -> {
            String why = JacorbInterceptorRule.blocker(orb);
            assertTrue(why != null && why.contains(SlotUser.Interceptor.class.getName())
                    && why.contains("per-thread state"), why);
            assertFalse(JacorbInterceptorRule.serverMovable(orb));
            // its client side has only BiDir's interceptor, but the ORB has a PICurrent slot: kept as well
            assertFalse(JacorbInterceptorRule.clientMovable(orb));
            String line = JacorbInterceptorRule.message(orb, why);
            assertTrue(line.startsWith("dthreads: original-thread callbacks are off for this ORB ("), line);
            assertTrue(line.contains(SlotUser.Interceptor.class.getName()), line);
        });
    }

    @Test
    void aPicurrentSlotAloneKeepsAnOrbWithInterceptorsInTakeOverMode() {
        withOrb(props(BIDIR, SlotOnly.class.getName()), orb -> {
            String why = JacorbInterceptorRule.blocker(orb);
            assertTrue(why != null && why.contains("PICurrent slots"), why);
            assertFalse(JacorbInterceptorRule.clientMovable(orb));
            assertFalse(JacorbInterceptorRule.serverMovable(orb));
        });
    }

    @Test
    void aSubclassOfABiDirInterceptorIsNotLetThrough() {
        withOrb(props(SubclassedBiDir.class.getName()), orb -> {
            String why = JacorbInterceptorRule.blocker(orb);
            assertTrue(why != null && why.contains(SubclassedBiDir.Client.class.getName()), why);
            assertFalse(JacorbInterceptorRule.clientMovable(orb));
        });
    }

    private static Properties props(String... initializers) {
        Properties p = Orbs.props(Orbs.Kind.JACORB, false);
        for (String i : initializers) {
            p.setProperty(PREFIX + i, "");
        }
        return p;
    }

    private static void withOrb(Properties p, java.util.function.Consumer<org.jacorb.orb.ORB> body) {
        ORB orb = Orbs.init(p);
        try {
            body.accept((org.jacorb.orb.ORB) orb);
        } finally {
            Orbs.shutdown(orb);
        }
    }

    /** A foreign server interceptor that allocates a PICurrent slot and fills it per request (as tracing does). */
    public static final class SlotUser extends LocalObject implements ORBInitializer {
        private static final long serialVersionUID = 1L;

        @Override
        public void pre_init(ORBInitInfo info) {}

        @Override
        public void post_init(ORBInitInfo info) {
            try {
                info.add_server_request_interceptor(new Interceptor(info.allocate_slot_id()));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        static final class Interceptor extends LocalObject implements ServerRequestInterceptor {
            private static final long serialVersionUID = 1L;
            private final int slot;

            Interceptor(int slot) {
                this.slot = slot;
            }

            @Override
            public void receive_request_service_contexts(ServerRequestInfo ri) {
                try {
                    org.omg.CORBA.Any any = ORB.init().create_any();
                    any.insert_string(ri.operation());
                    ri.set_slot(slot, any);
                } catch (org.omg.PortableInterceptor.InvalidSlot e) {
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
                return "slot-user";
            }

            @Override
            public void destroy() {}
        }
    }

    /** Allocates a PICurrent slot, registers no interceptor (an application using PICurrent directly). */
    public static final class SlotOnly extends LocalObject implements ORBInitializer {
        private static final long serialVersionUID = 1L;

        @Override
        public void pre_init(ORBInitInfo info) {
            info.allocate_slot_id();
        }

        @Override
        public void post_init(ORBInitInfo info) {}
    }

    /** Registers a subclass of JacORB's BiDir client interceptor (it could add thread state: not let through). */
    public static final class SubclassedBiDir extends LocalObject implements ORBInitializer {
        private static final long serialVersionUID = 1L;

        @Override
        public void pre_init(ORBInitInfo info) {}

        @Override
        public void post_init(ORBInitInfo info) {
            try {
                info.add_client_request_interceptor(
                        new Client(((org.jacorb.orb.portableInterceptor.ORBInitInfoImpl) info).getORB()));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        static final class Client extends org.jacorb.orb.giop.BiDirConnectionClientInterceptor {
            Client(org.jacorb.orb.ORB orb) {
                super(orb);
            }
        }
    }
}
