package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.dthreads.ThreadClass;
import org.dthreads.iiop.support.Orbs;
import org.dthreads.monitor.RemoteMonitorException;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.BAD_OPERATION;
import org.omg.CORBA.ORB;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.InvokeHandler;
import org.omg.CORBA.portable.ObjectImpl;
import org.omg.CORBA.portable.OutputStream;
import org.omg.CORBA.portable.ResponseHandler;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.Servant;

/**
 * Issue 15 §4: what a remote monitor reply carries is bounded at the client. A hostile or broken site answers
 * {@value MonitorRequestHook#OPERATION} with an error whose message is 1 MB long: the client's exception carries
 * at most {@link MonitorWire#MAX_MESSAGE} characters of it, and the next call works.
 */
class HostileSiteReplyTest {
    static final long CLS = ThreadClass.of(0x2a, 9);
    static final int HUGE = 1 << 20;

    static ORB server;
    static ORB client;
    static ObjectImpl hostile;

    /** Answers every monitor request with the given status and a huge message; a hand-written skeleton. */
    static final class HostileServant extends Servant implements InvokeHandler {
        volatile int status = MonitorWire.ILLEGAL_MONITOR_STATE;

        @Override
        public String[] _all_interfaces(POA poa, byte[] objectId) {
            return new String[] {"IDL:org/dthreads/test/Hostile:1.0"};
        }

        @Override
        public OutputStream _invoke(String operation, InputStream in, ResponseHandler handler) {
            if (!MonitorRequestHook.OPERATION.equals(operation)) {
                throw new BAD_OPERATION(operation);
            }
            OutputStream out = handler.createReply();
            out.write_long(status);
            if (status == MonitorWire.OK) {
                out.write_longlong(1L);
            } else {
                out.write_string("x".repeat(HUGE));
            }
            return out;
        }
    }

    static final HostileServant SERVANT = new HostileServant();

    @BeforeAll
    static void sites() throws Exception {
        server = Orbs.init(Orbs.Kind.JACORB, false);
        client = Orbs.init(Orbs.Kind.JACORB, false);
        Orbs.runInBackground(server, "hostile-server");
        String ior = server.object_to_string(Orbs.rootPoa(server).servant_to_reference(SERVANT));
        hostile = (ObjectImpl) client.string_to_object(ior);
    }

    @AfterAll
    static void stop() {
        Orbs.shutdown(client);
        Orbs.shutdown(server);
    }

    @Test
    void aHugeErrorMessageFromTheSiteIsClipped() throws Exception {
        IiopMonitorTransport t = IiopMonitorTransport.instance();
        SERVANT.status = MonitorWire.ILLEGAL_MONITOR_STATE;
        IllegalMonitorStateException imse = assertThrows(IllegalMonitorStateException.class,
                () -> t.call(hostile, RemoteMonitorSite.HOLDS, CLS, 0L, 0L, 0));
        assertTrue(imse.getMessage().length() <= MonitorWire.MAX_MESSAGE + 3, "length " + imse.getMessage().length());

        SERVANT.status = 77; // an unknown status
        RemoteMonitorException unknown = assertThrows(RemoteMonitorException.class,
                () -> t.call(hostile, RemoteMonitorSite.HOLDS, CLS, 0L, 0L, 0));
        assertTrue(unknown.getMessage().length() <= 2 * MonitorWire.MAX_MESSAGE, "length " + unknown.getMessage().length());
        assertTrue(unknown.getMessage().contains("unknown reply status 77"), unknown.getMessage().substring(0, 200));

        SERVANT.status = MonitorWire.OK;
        assertEquals(1L, t.call(hostile, RemoteMonitorSite.HOLDS, CLS, 0L, 0L, 0), "the next call works");
    }
}
