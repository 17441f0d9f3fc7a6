package org.dthreads.rmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.server.RemoteRef;
import java.rmi.server.UnicastRemoteObject;
import org.dthreads.internal.KernelLink;
import org.dthreads.internal.PeerHellos;
import org.dthreads.internal.SiteHelloAnswer;
import org.junit.jupiter.api.Test;

/**
 * A JRMP server's answer to malformed hellos (never an exception), and what a
 * client does with peers that cannot answer: real JRMP exports in this JVM.
 */
class SiteHellosTest {

    /** An older dthreads: the diagnose method is there, op 11 is not. */
    public interface OlderDthreads extends Remote {
        String dthreads$diagnose(int op, long threadClass, long token, long arg, int nanos) throws RemoteException;
    }

    /** No dthreads at all. */
    public interface Plain extends Remote {
        String hello() throws RemoteException;
    }

    /** A current dthreads site, answering with MonitorPort's own default method. */
    public interface Current extends MonitorPort {
        String hello() throws RemoteException;
    }

    @Test
    void aPeerThatCannotAnswerIsNotAskedAgainAndOneThatAnswersIs() throws Exception {
        OlderDthreads older = (op, c, t, a, n) -> {
            throw new IllegalArgumentException("dthreads: unknown remote text operation " + op);
        };
        OlderDthreads garbled = (op, c, t, a, n) -> "not an identity";
        Plain plain = () -> "hi";
        Current current = () -> "hi";
        assertEquals(false, helloAndAskAgain(older), "older dthreads: given up");
        assertEquals(false, helloAndAskAgain(plain), "no dthreads: given up");
        assertEquals(true, helloAndAskAgain(garbled), "a malformed answer is logged and ignored, asked again later");
        assertEquals(true, helloAndAskAgain(current), "answered");
    }

    /** Sends a hello to {@code impl} exported on its own endpoint; returns whether a later hello is still due. */
    private static boolean helloAndAskAgain(Remote impl) throws Exception {
        Remote stub = UnicastRemoteObject.exportObject(impl, 0);
        try {
            RemoteRef ref = JrmpMonitorTransport.refOf(stub);
            // exports on port 0 share one endpoint in a JVM: a key per case (it only keys the hello schedule)
            String endpoint = RmiClientHook.endpointOf(ref) + " case " + System.identityHashCode(impl);
            SiteHellos.send(ref, stub, endpoint);
            return PeerHellos.due(endpoint);
        } finally {
            UnicastRemoteObject.unexportObject(impl, true);
        }
    }

    @Test
    void aServerAnswersEveryHelloWithItsOwnIdentity() {
        String own = SiteHelloAnswer.format(KernelLink.siteId(), KernelLink.siteIncarnation());
        assertEquals(own, SiteHellos.answer(0x0000002a00000007L, 0x1234, "127.0.0.1"));
        assertEquals(own, SiteHellos.answer(0, 0x1234, "127.0.0.1"), "invalid class: logged, answered");
        assertEquals(own, SiteHellos.answer(0x0000002a00000007L, 0, "127.0.0.1"), "no incarnation: logged, answered");
    }
}
