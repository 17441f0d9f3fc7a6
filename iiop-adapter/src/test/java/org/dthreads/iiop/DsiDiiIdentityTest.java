package org.dthreads.iiop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.dthreads.ClassScope;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.iiop.support.Orbs;
import org.dthreads.internal.KernelLink;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.Any;
import org.omg.CORBA.NVList;
import org.omg.CORBA.ORB;
import org.omg.CORBA.Request;
import org.omg.CORBA.ServerRequest;
import org.omg.CORBA.TCKind;
import org.omg.PortableServer.DynamicImplementation;
import org.omg.PortableServer.POA;

/**
 * A DSI servant called through DII, JacORB on both ends (separate ORBs in this JVM): the servant sees the
 * caller's class, and the dynamic request works (the fast path must not turn a DSI request into a
 * stream-based one).
 */
class DsiDiiIdentityTest {

    static final String ID = "IDL:dthreads/test/Dsi:1.0";

    /** {@code long long seen()}: the class bound on the thread that serves the request. */
    static final class Seen extends DynamicImplementation {
        private final ORB orb;

        Seen(ORB orb) {
            this.orb = orb;
        }

        @Override
        public void invoke(ServerRequest request) {
            request.arguments(orb.create_list(0));
            Any result = orb.create_any();
            result.insert_longlong(KernelLink.currentClass());
            request.set_result(result);
        }

        @Override
        public String[] _all_interfaces(POA poa, byte[] objectId) {
            return new String[] {ID};
        }
    }

    private static long seen(ORB client, org.omg.CORBA.Object target) {
        NVList none = client.create_list(0);
        Request r = target._create_request(null, "seen", none, client.create_named_value("result", client.create_any(), 0));
        r.set_return_type(client.get_primitive_tc(TCKind.tk_longlong));
        r.invoke();
        if (r.env().exception() != null) {
            throw new AssertionError(r.env().exception());
        }
        return r.return_value().extract_longlong();
    }

    @Test
    void dsiServantCalledThroughDiiSeesTheCallersClass() throws Exception {
        ORB server = Orbs.init(Orbs.Kind.JACORB, true);
        ORB client = Orbs.init(Orbs.Kind.JACORB, true);
        try {
            Orbs.runInBackground(server, "dsi-server");
            String ior = server.object_to_string(Orbs.rootPoa(server).servant_to_reference(new Seen(server)));
            org.omg.CORBA.Object target = client.string_to_object(ior);
            assertEquals(KernelLink.currentClass(), seen(client, target));
            long x = ThreadClass.of(0x0d51_d11, 1);
            try (ClassScope s = DThreads.bind(x)) {
                assertEquals(x, seen(client, target));
            }
        } finally {
            Orbs.shutdown(client);
            Orbs.shutdown(server);
        }
    }
}
