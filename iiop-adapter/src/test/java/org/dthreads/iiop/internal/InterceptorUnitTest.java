package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.System.Logger.Level;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.dthreads.ClassScope;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.internal.KernelLink;
import org.dthreads.internal.RateLimitedLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.TRANSIENTHelper;
import org.omg.CORBA.UNKNOWNHelper;
import org.omg.PortableInterceptor.LOCATION_FORWARD;
import org.omg.PortableInterceptor.SUCCESSFUL;
import org.omg.PortableInterceptor.TRANSPORT_RETRY;

/** The interceptors against fake request infos: oneway, retries, the server stack and its guards. */
class InterceptorUnitTest {

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final RateLimitedLog log = new RateLimitedLog((Level level, String line) -> lines.add(level + " " + line),
            Long.MAX_VALUE, () -> 0L);
    private final ClientIdentityInterceptor client = new ClientIdentityInterceptor(log);
    private final ServerIdentityInterceptor server = new ServerIdentityInterceptor(log);

    @AfterEach
    void threadIsClean() {
        assertEquals(0, ServerIdentityInterceptor.threadState()[0], "adapter bindings left on the test thread");
        assertEquals(ThreadClass.NONE, KernelLink.boundClass());
    }

    private long send(FakeInfo f) {
        client.send_request(f.client());
        return f.sentClass();
    }

    @Test
    void twoWayCarriesTheCurrentClassAndTheBoundOne() {
        assertEquals(KernelLink.currentClass(), send(FakeInfo.request("op", true)));
        long other = ThreadClass.of(0x7777, 0x8888);
        try (ClassScope s = DThreads.bind(other)) {
            assertEquals(other, send(FakeInfo.request("op", true)));
            assertEquals(other, send(FakeInfo.request("_is_a", true)), "implicit operations carry the class too");
        }
    }

    @Test
    void aTwoWayRequestMarksTheThreadWaitingUntilItEnds() {
        int before = PendingReplies.depth();
        FakeInfo call = FakeInfo.request("op", true);
        client.send_request(call.client());
        assertEquals(before + 1, PendingReplies.depth());
        client.receive_reply(call.client());
        assertEquals(before, PendingReplies.depth());

        client.send_request(FakeInfo.request("fire", false).client());
        assertEquals(before, PendingReplies.depth(), "a oneway caller keeps running");

        FakeInfo outer = FakeInfo.request("outer", true);
        FakeInfo inner = FakeInfo.request("inner", true);
        client.send_request(outer.client());
        client.send_request(inner.client());
        assertEquals(before + 2, PendingReplies.depth());
        client.receive_other(outer.client());
        assertEquals(before, PendingReplies.depth(), "an inner request whose end never came ends with the outer one");

        client.receive_reply(FakeInfo.request("never-sent", true).client());
        assertEquals(before, PendingReplies.depth(), "an end for a request this thread did not send changes nothing");
    }

    @Test
    void onewayStartsAFreshClassEachTime() {
        long a = send(FakeInfo.request("fire", false));
        FakeInfo end = FakeInfo.request("fire", false).with("reply_status", SUCCESSFUL.value);
        client.receive_other(end.client());
        long b = send(FakeInfo.request("fire", false));
        assertTrue(ThreadClass.isValid(a) && ThreadClass.isValid(b));
        assertNotEquals(a, b);
        assertNotEquals(KernelLink.currentClass(), a);
    }

    @Test
    void onewayRetriesKeepTheirClass() {
        long first = send(FakeInfo.request("fire", false));
        client.receive_other(FakeInfo.request("fire", false).with("reply_status", LOCATION_FORWARD.value).client());
        assertEquals(first, send(FakeInfo.request("fire", false)), "LOCATION_FORWARD retry");
        client.receive_other(FakeInfo.request("fire", false).with("reply_status", TRANSPORT_RETRY.value).client());
        assertEquals(first, send(FakeInfo.request("fire", false)), "TRANSPORT_RETRY retry");
        client.receive_exception(FakeInfo.request("fire", false).with("received_exception_id", TRANSIENTHelper.id()).client());
        assertEquals(first, send(FakeInfo.request("fire", false)), "TRANSIENT retry");
        client.receive_exception(FakeInfo.request("fire", false).with("received_exception_id", UNKNOWNHelper.id()).client());
        assertNotEquals(first, send(FakeInfo.request("fire", false)), "not a retry: a new oneway");
    }

    @Test
    void anArmedRetryIsNotReusedByAnotherOperationOrAfterATwoWay() {
        long first = send(FakeInfo.request("fire", false));
        client.receive_other(FakeInfo.request("fire", false).with("reply_status", LOCATION_FORWARD.value).client());
        assertNotEquals(first, send(FakeInfo.request("other", false)));

        long second = send(FakeInfo.request("fire", false));
        client.receive_other(FakeInfo.request("fire", false).with("reply_status", LOCATION_FORWARD.value).client());
        send(FakeInfo.request("twoWay", true));
        assertNotEquals(second, send(FakeInfo.request("fire", false)));
    }

    @Test
    void twoWayRetriesKeepTheClass() {
        long first = send(FakeInfo.request("op", true));
        client.receive_other(FakeInfo.request("op", true).with("reply_status", LOCATION_FORWARD.value).client());
        assertEquals(first, send(FakeInfo.request("op", true)));
        client.receive_exception(FakeInfo.request("op", true).with("received_exception_id", TRANSIENTHelper.id()).client());
        assertEquals(first, send(FakeInfo.request("op", true)));
    }

    @Test
    void serverBindsForTheRequestAndRestoresThePreviousBinding() {
        long caller = ThreadClass.of(0x1234, 0x5678);
        long outer = ThreadClass.of(0x1111, 0x2222);
        try (ClassScope s = DThreads.bind(outer)) {
            FakeInfo f = FakeInfo.request("op", true).context(IdentityContext.encode(caller, true));
            server.receive_request_service_contexts(f.server());
            assertEquals(outer, KernelLink.currentClass(), "nothing bound before receive_request");
            server.receive_request(f.server());
            assertEquals(caller, KernelLink.currentClass());
            assertEquals(outer, ServerIdentityInterceptor.threadState()[1]);
            server.send_reply(f.server());
            assertEquals(outer, KernelLink.boundClass());
        }
        assertTrue(lines.isEmpty(), lines.toString());
    }

    @Test
    void everyEndingPointUnbinds() {
        long caller = ThreadClass.of(0x1234, 0x5678);
        FakeInfo a = FakeInfo.request("op", true).context(IdentityContext.encode(caller));
        server.receive_request(a.server());
        server.send_exception(a.server());
        assertEquals(ThreadClass.NONE, KernelLink.boundClass());
        FakeInfo b = FakeInfo.request("op", true).context(IdentityContext.encode(caller));
        server.receive_request(b.server());
        server.send_other(b.server());
        assertEquals(ThreadClass.NONE, KernelLink.boundClass());
    }

    @Test
    void aSiteHelloGoesWithTheFirstTwoWayRequestToAServerOnly() {
        // the key is the endpoint of the request's IIOP profile (host "unit.test", port 2), not the target object
        org.omg.IOP.TaggedProfile target = new org.omg.IOP.TaggedProfile(org.omg.IOP.TAG_INTERNET_IOP.value,
                new byte[] {0, 1, 2, 0, 0, 0, 0, 10, 'u', 'n', 'i', 't', '.', 't', 'e', 's', 't', 0, 0, 2});
        FakeInfo first = FakeInfo.request("op", true).with("effective_profile", target);
        client.send_request(first.client());
        client.receive_reply(first.client());
        assertEquals(2, first.added.size(), "identity and hello");
        assertEquals(SiteHelloContext.FLAG, first.added.get(0).context_data[1], "the identity context announces it");
        assertEquals(KernelLink.currentClass(), IdentityContext.decode(first.added.get(0).context_data));
        assertEquals(SiteHelloContext.ID, first.added.get(1).context_id);
        assertEquals(HexFormat.of().formatHex(SiteHelloContext.own()), HexFormat.of().formatHex(first.added.get(1).context_data));

        FakeInfo second = FakeInfo.request("op", true).with("effective_profile", target);
        client.send_request(second.client());
        client.receive_reply(second.client());
        assertEquals(1, second.added.size(), "nothing more until the refresh period has passed");
        assertEquals(0, second.added.get(0).context_data[1]);

        FakeInfo oneway = FakeInfo.request("fire", false).with("effective_profile", new org.omg.IOP.TaggedProfile(
                org.omg.IOP.TAG_INTERNET_IOP.value, new byte[] {0, 1, 2, 0, 0, 0, 0, 2, 'o', 0, 0, 3})); // a new server
        client.send_request(oneway.client());
        client.receive_other(oneway.with("reply_status", SUCCESSFUL.value).client());
        assertEquals(1, oneway.added.size(), "oneway requests carry no hello");
    }

    @Test
    void aFlaggedRequestWithAMalformedOrMissingHelloIsServedAsUsual() {
        long caller = ThreadClass.of(0x2a, 7);
        byte[] identity = IdentityContext.encode(caller);
        identity[1] = SiteHelloContext.FLAG;
        for (byte[] hello : new byte[][] {null, new byte[3], HexFormat.of().parseHex("02000000000000000000002a00000007"),
                SiteHelloContext.encode(0x2a, 0x1234)}) {
            FakeInfo f = FakeInfo.request("op", true).context(identity);
            if (hello != null) {
                f.hello(hello);
            }
            server.receive_request(f.server());
            assertEquals(caller, KernelLink.currentClass());
            server.send_reply(f.server());
        }
        assertTrue(lines.isEmpty(), lines.toString());
    }

    @Test
    void noContextMeansAFreshClass() {
        FakeInfo f = FakeInfo.request("op", true);
        server.receive_request(f.server());
        long seen = KernelLink.currentClass();
        assertEquals(seen, KernelLink.boundClass());
        assertEquals(DThreads.siteId(), ThreadClass.siteId(seen));
        server.send_reply(f.server());
        assertTrue(lines.isEmpty(), "a missing context is normal, not logged: " + lines);
    }

    @Test
    void malformedContextsAreServedFreshAndLoggedOnce() {
        String[] bad = {"", "00", "00000000000000000000002a000000", "00000000000000000000002a0000000700",
                "02000000000000000000002a00000007", "00000000000000000000000000000000"};
        long previous = ThreadClass.NONE;
        for (String hex : bad) {
            FakeInfo f = FakeInfo.request("op", true).context(HexFormat.of().parseHex(hex));
            server.receive_request(f.server());
            long seen = KernelLink.currentClass();
            assertTrue(ThreadClass.isValid(seen));
            assertEquals(DThreads.siteId(), ThreadClass.siteId(seen));
            assertNotEquals(previous, seen);
            previous = seen;
            server.send_reply(f.server());
        }
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).contains("malformed identity service context 0x44540001"), lines.get(0));
    }

    @Test
    void endingPointWithoutReceiveRequestChangesNothing() {
        long outer = ThreadClass.of(0x1111, 0x2222);
        try (ClassScope s = DThreads.bind(outer)) {
            server.send_reply(FakeInfo.request("op", true).server());
            server.send_exception(FakeInfo.request("op", true).server());
            server.send_other(FakeInfo.request("op", true).server());
            assertEquals(outer, KernelLink.boundClass());
        }
    }

    @Test
    void nestedRequestsOnOneThreadStack() {
        long c1 = ThreadClass.of(1, 1);
        long c2 = ThreadClass.of(2, 2);
        FakeInfo outer = FakeInfo.request("outer", true).context(IdentityContext.encode(c1));
        FakeInfo inner = FakeInfo.request("inner", true).context(IdentityContext.encode(c2));
        server.receive_request(outer.server());
        server.receive_request(inner.server());
        assertEquals(c2, KernelLink.currentClass());
        assertEquals(2, ServerIdentityInterceptor.threadState()[0]);
        assertEquals(c1, ServerIdentityInterceptor.threadState()[1]);
        server.send_reply(inner.server());
        assertEquals(c1, KernelLink.currentClass());
        server.send_reply(outer.server());
        assertEquals(ThreadClass.NONE, KernelLink.boundClass());
    }

    @Test
    void anInnerBindingWithoutEndingPointIsClosedWithTheOuter() {
        FakeInfo outer = FakeInfo.request("outer", true).context(IdentityContext.encode(ThreadClass.of(1, 1)));
        FakeInfo inner = FakeInfo.request("inner", true).context(IdentityContext.encode(ThreadClass.of(2, 2)));
        server.receive_request(outer.server());
        server.receive_request(inner.server());
        server.send_reply(outer.server());
        assertEquals(ThreadClass.NONE, KernelLink.boundClass());
        assertEquals(1, lines.size(), lines.toString());
    }

    @Test
    void failingRequestInfosNeverThrowOutOfTheInterceptors() {
        FakeInfo f = FakeInfo.request("op", true);
        f.throwEverywhere = true;
        client.send_request(f.client());
        client.receive_reply(f.client());
        client.receive_exception(f.client());
        client.receive_other(f.client());
        server.receive_request_service_contexts(f.server());
        server.receive_request(f.server());
        server.send_reply(f.server());
        server.send_exception(f.server());
        server.send_other(f.server());
        assertTrue(lines.size() >= 2, lines.toString());
    }

    @Test
    void singleThreadModelServantCallingOutIsReported() {
        FakeInfo stm = FakeInfo.request("op", true).context(IdentityContext.encode(ThreadClass.of(3, 3))).singleThreadModel();
        server.receive_request(stm.server());
        send(FakeInfo.request("callOut", true));
        send(FakeInfo.request("fireAndForget", false));
        server.send_reply(stm.server());
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).contains("SINGLE_THREAD_MODEL"), lines.get(0));
    }

    @Test
    void anEarlyReplyKeepsTheBindingUntilTheThreadsNextRequest() {
        long c1 = ThreadClass.of(5, 5);
        long c2 = ThreadClass.of(6, 6);
        ServerBindings b = ServerBindings.current();
        Object early = new Object();
        ServerBindings.Entry e = new ServerBindings.Entry(early, KernelLink.bind(c1), ThreadClass.NONE);
        e.earlyReplyPossible = true;
        b.push(e);
        assertTrue(b.deferIfEarlyReply(early), "send_reply before the servant: kept");
        assertEquals(c1, KernelLink.currentClass(), "the servant still runs as the caller's class");
        // the next request on this thread (through the interceptor) closes it first
        FakeInfo next = FakeInfo.request("op", true).context(IdentityContext.encode(c2));
        server.receive_request(next.server());
        assertEquals(c2, KernelLink.currentClass());
        assertEquals(1, ServerIdentityInterceptor.threadState()[0]);
        assertEquals(ThreadClass.NONE, ServerIdentityInterceptor.threadState()[1]);
        server.send_reply(next.server());
        assertTrue(lines.isEmpty(), lines.toString());
    }

    @Test
    void anEarlyReplyFollowedByAnExceptionReplyClosesAtOnce() {
        ServerBindings b = ServerBindings.current();
        Object early = new Object();
        ServerBindings.Entry e = new ServerBindings.Entry(early, KernelLink.bind(ThreadClass.of(7, 7)), ThreadClass.NONE);
        e.earlyReplyPossible = true;
        b.push(e);
        assertTrue(b.deferIfEarlyReply(early));
        assertTrue(!b.deferIfEarlyReply(early), "a second ending point is not deferred");
        assertEquals(0, b.pop(early));
    }

    @Test
    void ordinaryRequestsAreNeverDeferred() {
        FakeInfo f = FakeInfo.request("op", true).context(IdentityContext.encode(ThreadClass.of(8, 8)));
        server.receive_request(f.server());
        server.send_reply(f.server());
        assertEquals(ThreadClass.NONE, KernelLink.boundClass(), "unbound at send_reply, not later");
    }
}
