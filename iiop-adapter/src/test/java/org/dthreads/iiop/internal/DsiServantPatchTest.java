package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.dthreads.iiop.support.DsiServant;
import org.dthreads.iiop.support.Orbs;
import org.dthreads.monitor.RemoteMonitorException;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.ObjectImpl;
import org.omg.CORBA.portable.OutputStream;

/**
 * Issue 15 §5: a DSI servant ({@code DynamicImplementation}) serves remote monitor requests once the agent
 * patched its {@code invoke(ServerRequest)}, in JacORB, through {@link IiopMonitorTransport}: enter, holds,
 * exit under a lease, the same wire format as a compiled skeleton. Unpatched, it answers like a site without
 * dthreads. The servant's monitor is emulated through {@code -Ddthreads.monitor.emulated} (surefire).
 */
class DsiServantPatchTest {
    static final String DSI = "org.dthreads.iiop.support.DsiServant";

    static ORB server;
    static ORB client;
    static ObjectImpl patched;
    static ObjectImpl unpatched;

    @BeforeAll
    static void start() throws Exception {
        server = Orbs.init(Orbs.Kind.JACORB, true);
        client = Orbs.init(Orbs.Kind.JACORB, true);
        byte[] dsi = ServantInvokePatch.patch(ServantInvokePatchTest.bytes(DSI));
        assertNotNull(dsi, "a DSI servant's invoke(ServerRequest) is patched");
        assertEquals("", ServantInvokePatchTest.verify(dsi));
        Object instance = Class.forName(DSI, true, new ServantInvokePatchTest.PatchedLoader(Map.of(DSI, dsi)))
                .getConstructor().newInstance();
        String patchedIor = server.object_to_string(Orbs.rootPoa(server)
                .servant_to_reference((org.omg.PortableServer.Servant) instance));
        String plainIor = server.object_to_string(Orbs.rootPoa(server).servant_to_reference(new DsiServant()));
        patched = (ObjectImpl) client.string_to_object(patchedIor);
        unpatched = (ObjectImpl) client.string_to_object(plainIor);
    }

    @AfterAll
    static void stop() {
        Orbs.shutdown(client);
        Orbs.shutdown(server);
    }

    @Test
    void aPatchedDsiServantServesEnterHoldsAndExit() throws Exception {
        IiopMonitorTransport t = IiopMonitorTransport.instance();
        long cls = ServantInvokePatchTest.CLS;
        long token = t.call(patched, RemoteMonitorSite.ENTER, cls, 0L, 30_000L, 0);
        assertNotEquals(0L, token);
        assertEquals(1L, t.call(patched, RemoteMonitorSite.HOLDS, cls, token, 0L, 0));
        assertEquals(0L, t.call(patched, RemoteMonitorSite.EXIT, cls, token, 0L, 0));
        assertEquals(0L, t.call(patched, RemoteMonitorSite.HOLDS, cls, token, 0L, 0));
        IllegalMonitorStateException e = assertThrows(IllegalMonitorStateException.class,
                () -> t.call(patched, RemoteMonitorSite.EXIT, cls, token, 0L, 0));
        assertTrue(e.getMessage().contains("lease"), e.getMessage());
    }

    /** A short body read through the DSI (JacORB reads its arguments past the end too): refused, not run. */
    @Test
    void aTruncatedRequestIsRefusedAndNotRun() throws Exception {
        ServantInvokePatchTest.fillBufferPool(server, ServantInvokePatchTest.STALE_HIGH, ServantInvokePatchTest.STALE_LOW);
        OutputStream out = patched._request(MonitorRequestHook.OPERATION, true);
        out.write_long(RemoteMonitorSite.HOLDS); // truncated: nothing after the op code
        InputStream in = patched._invoke(out);
        try {
            assertEquals(MonitorWire.REFUSED, in.read_long());
            String message = in.read_string();
            assertTrue(message.contains("malformed"), message);
        } finally {
            patched._releaseReply(in);
        }
        assertEquals(0L, IiopMonitorTransport.instance().call(patched, RemoteMonitorSite.HOLDS,
                ServantInvokePatchTest.CLS, 0L, 0L, 0), "the servant keeps serving");
    }

    @Test
    void anUnpatchedDsiServantIsASiteWithoutDthreads() {
        RemoteMonitorException e = assertThrows(RemoteMonitorException.class, () -> IiopMonitorTransport.instance()
                .call(unpatched, RemoteMonitorSite.HOLDS, ServantInvokePatchTest.CLS, 0L, 0L, 0));
        assertTrue(e.getMessage().contains("does not run dthreads"), e.getMessage());
    }
}
