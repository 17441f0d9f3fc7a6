package org.dthreads.iiop;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;
import org.dthreads.iiop.support.HopServant;
import org.dthreads.iiop.support.LogCapture;
import org.dthreads.iiop.support.Orbs;
import org.dthreads.iiop.testidl.Hop;
import org.dthreads.iiop.testidl.HopHelper;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;
import org.omg.CORBA.Policy;
import org.omg.CORBA.SystemException;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.ThreadPolicyValue;

/**
 * The documented limit: a SINGLE_THREAD_MODEL POA cannot dispatch a nested callback while its
 * servant waits in an outgoing call, whatever the identity says. A -> B -> A(stm) blocks until the
 * ORB's reply timeout; the adapter warns when the STM servant calls out.
 */
class SingleThreadModelTest {

    @Test
    void callbackIntoABusySingleThreadModelPoaCannotBeDispatched() throws Exception {
        Properties pa = Orbs.props(Orbs.Kind.JACORB, true);
        Properties pb = Orbs.props(Orbs.Kind.JACORB, true);
        pb.setProperty("jacorb.connection.client.pending_reply_timeout", "1500"); // ms: bounds the deadlock
        ORB a = Orbs.init(pa);
        ORB b = Orbs.init(pb);
        try (LogCapture log = new LogCapture()) {
            Orbs.runInBackground(a, "stmA");
            Orbs.runInBackground(b, "stmB");
            POA root = Orbs.rootPoa(a);
            Policy[] policies = {root.create_thread_policy(ThreadPolicyValue.SINGLE_THREAD_MODEL)};
            POA stm = root.create_POA("stm", root.the_POAManager(), policies);
            Hop s = HopHelper.narrow(a.string_to_object(a.object_to_string(stm.id_to_reference(stm.activate_object(new HopServant())))));
            Hop hb = HopHelper.narrow(a.string_to_object(b.object_to_string(Orbs.rootPoa(b).servant_to_reference(new HopServant()))));
            Hop sFromTest = HopHelper.narrow(b.string_to_object(a.object_to_string(s)));
            // test -> S(stm) -> B: the STM servant calls out, no callback: works, identity kept, warning logged
            long me = org.dthreads.internal.KernelLink.currentClass();
            org.junit.jupiter.api.Assertions.assertArrayEquals(new long[] {me, me}, sFromTest.chain(hb, s, 1));
            long t0 = System.nanoTime();
            // test -> S(stm on A) -> B -> S again: the callback waits behind S's own request
            assertThrows(SystemException.class, () -> sFromTest.chain(hb, s, 2));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms >= 1000, "ended by the reply timeout, not by dispatch: " + ms + " ms");
            // the only test in this JVM that triggers this (rate-limited, once a minute) warning
            assertTrue(log.lines().stream().anyMatch(l -> l.startsWith("WARN") && l.contains("SINGLE_THREAD_MODEL")),
                    log.lines().toString());
        } finally {
            Orbs.shutdown(b);
            Orbs.shutdown(a);
        }
    }
}
