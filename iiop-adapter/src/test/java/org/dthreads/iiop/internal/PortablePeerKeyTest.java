package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.dthreads.iiop.support.HopServant;
import org.dthreads.iiop.support.Orbs;
import org.dthreads.iiop.support.SendRequestInterceptor;
import org.dthreads.iiop.testidl.Hop;
import org.dthreads.iiop.testidl.HopHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.omg.CORBA.LocalObject;
import org.omg.CORBA.ORB;
import org.omg.PortableInterceptor.ClientRequestInfo;
import org.omg.PortableInterceptor.ORBInitInfo;
import org.omg.PortableInterceptor.ORBInitializer;
import org.omg.PortableServer.POA;

/**
 * The portable path's site-hello key ({@link ClientIdentityInterceptor#peerKey}) is the server's endpoint, the same for
 * every request and every reference to that server. It was the target object's identity, which the GlassFish ORB makes
 * anew for each request: every call then asked the server for a hello (the GlassFish PI path measured 2.75x an
 * interceptor-free call instead of about 1.05x).
 */
@Timeout(60)
class PortablePeerKeyTest {

    /** What the probe saw, one key per request sent (test-only; requests are made one at a time). */
    static final List<Object> KEYS = new ArrayList<>();

    @ParameterizedTest
    @EnumSource(Orbs.Kind.class)
    void everyRequestToOneServerHasTheSameKeyAndAnotherServerAnother(Orbs.Kind kind) {
        Properties p = Orbs.props(kind, false);
        p.setProperty("org.omg.PortableInterceptor.ORBInitializerClass." + Probe.class.getName(), "");
        ORB client = Orbs.init(p);
        ORB serverB = Orbs.init(kind, false);
        ORB serverC = Orbs.init(kind, false);
        try {
            Orbs.runInBackground(serverB, "serverB");
            Orbs.runInBackground(serverC, "serverC");
            POA poaB = Orbs.rootPoa(serverB);
            Hop b1 = hop(client, serverB, poaB);
            Hop b2 = hop(client, serverB, poaB);
            Hop c = hop(client, serverC, Orbs.rootPoa(serverC));
            synchronized (KEYS) {
                KEYS.clear();
                b1.seen();
                b1.seen();
                b2.seen();
                c.seen();
                List<Object> keys = new ArrayList<>(KEYS);
                assertEquals(4, keys.size(), keys.toString());
                assertTrue(String.valueOf(keys.get(0)).startsWith("iiop 127.0.0.1:"), keys.toString());
                assertEquals(keys.get(0), keys.get(1), "the same reference twice: " + keys);
                assertEquals(keys.get(0), keys.get(2), "another reference to the same server: " + keys);
                assertNotEquals(keys.get(0), keys.get(3), "another server: " + keys);
            }
        } finally {
            Orbs.shutdown(client);
            Orbs.shutdown(serverB);
            Orbs.shutdown(serverC);
        }
    }

    @Test
    void endpointOfHandWrittenProfileBodies() {
        byte[] big = {0, 1, 2, 0, 0, 0, 0, 4, 'a', '.', 'b', 0, 0x1F, (byte) 0x90, 0, 0};
        assertEquals("iiop a.b:8080", IiopEndpoint.of(big));
        byte[] little = {1, 1, 2, 0, 5, 0, 0, 0, 'h', 'o', 's', 't', 0, 0, (byte) 0x90, 0x1F};
        assertEquals("iiop host:8080", IiopEndpoint.of(little), "an odd end of the host string: port aligned to 2");
        assertNull(IiopEndpoint.of(new byte[] {0, 1, 2, 0, 0x7F, 0, 0, 0, 'x'}), "a host longer than the body");
        assertNull(IiopEndpoint.of(new byte[] {0, 1, 2, 0, 0, 0, 0, 0, 0, 0}), "no host string at all");
        assertNull(IiopEndpoint.of(new byte[] {0, 1, 2, 0, 0, 0, 0, 2, 'x', 0}), "no room for the port");
        assertNull(IiopEndpoint.of(new byte[3]));
        assertNull(IiopEndpoint.of(null));
    }

    private static Hop hop(ORB client, ORB server, POA poa) {
        try {
            String ior = server.object_to_string(poa.servant_to_reference(new HopServant()));
            return HopHelper.narrow(client.string_to_object(ior));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Registers a client interceptor that records {@link ClientIdentityInterceptor#peerKey} of every request. */
    public static final class Probe extends LocalObject implements ORBInitializer {
        private static final long serialVersionUID = 1L;

        @Override
        public void pre_init(ORBInitInfo info) {
            SendRequestInterceptor.register(info, new Recorder());
        }

        @Override
        public void post_init(ORBInitInfo info) {}
    }

    private static final class Recorder extends SendRequestInterceptor {
        private static final long serialVersionUID = 1L;

        Recorder() {
            super("test.peer-key");
        }

        @Override
        public void send_request(ClientRequestInfo ri) {
            if (ri.operation().equals("seen")) {
                KEYS.add(ClientIdentityInterceptor.peerKey(ri));
            }
        }
    }
}
