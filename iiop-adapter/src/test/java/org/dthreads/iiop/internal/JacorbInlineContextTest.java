package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.awaitility.Awaitility;
import org.dthreads.ClassScope;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.iiop.support.ExtraContextInitializer;
import org.dthreads.iiop.support.GiopRecorder;
import org.dthreads.iiop.support.HopServant;
import org.dthreads.iiop.support.IorRewrite;
import org.dthreads.iiop.support.Orbs;
import org.dthreads.iiop.support.SinkServant;
import org.dthreads.iiop.testidl.Hop;
import org.dthreads.iiop.testidl.HopHelper;
import org.jacorb.orb.giop.GIOPConnection;
import org.jacorb.orb.giop.RequestOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.omg.CORBA.Any;
import org.omg.CORBA.ORB;
import org.omg.CORBA.OctetSeqHelper;
import org.omg.CORBA.Policy;
import org.omg.CORBA.SetOverrideType;
import org.omg.CORBA.TCKind;
import org.omg.CORBA.portable.ObjectImpl;
import org.omg.IOP.ServiceContext;
import org.omg.IOP.TAG_CODE_SETS;
import org.omg.Messaging.SYNC_NONE;
import org.omg.Messaging.SYNC_SCOPE_POLICY_TYPE;
import org.omg.Messaging.SyncScopeHelper;
import org.omg.PortableServer.POA;

/**
 * The identity context written inline in the request header ({@link JacorbInlineContext}), checked on the
 * bytes JacORB actually sends: a recording proxy ({@link GiopRecorder}) between a client ORB of the
 * fast path and a JacORB server, the client speaking GIOP 1.0, 1.1 or 1.2 (the version of the IOR's
 * profile). Every request carries exactly one identity context with the caller's class, its body where
 * GIOP says (the arguments decode from the recorded bytes and on the server), also when JacORB or an
 * application adds contexts of its own (the inline list is taken out, JacORB's path) and for oneways.
 */
class JacorbInlineContextTest {

    /** {@code -Ddthreads.iiop.path=portable}: the same wire checks, nothing written inline. */
    private static final boolean PORTABLE = "portable".equals(System.getProperty(FastPaths.PATH_PROPERTY));

    private static ORB server;
    private static ORB plainServer;
    private static String hopIor;
    private static String sinkIor;
    private static String plainHopIor;
    private static SinkServant sink;

    @BeforeAll
    static void servers() throws Exception {
        server = Orbs.init(Orbs.Kind.JACORB, true);
        Orbs.runInBackground(server, "inline-server");
        POA poa = Orbs.rootPoa(server);
        hopIor = server.object_to_string(poa.servant_to_reference(new HopServant()));
        sink = new SinkServant();
        sinkIor = server.object_to_string(poa.servant_to_reference(sink));
        plainServer = Orbs.init(Orbs.Kind.JACORB, false);
        Orbs.runInBackground(plainServer, "inline-plain-server");
        plainHopIor = plainServer.object_to_string(Orbs.rootPoa(plainServer).servant_to_reference(new HopServant()));
    }

    @AfterAll
    static void stop() {
        Orbs.shutdown(server);
        Orbs.shutdown(plainServer);
    }

    private static ORB client(boolean applicationInterceptor) {
        Properties p = Orbs.props(Orbs.Kind.JACORB, true);
        if (applicationInterceptor) {
            p.setProperty(ExtraContextInitializer.PROPERTY, "");
        }
        return Orbs.init(p);
    }

    private static GiopRecorder recorderFor(String ior) throws Exception {
        return new GiopRecorder("127.0.0.1", IorRewrite.port(server, ior));
    }

    private static Hop hop(ORB client, GiopRecorder recorder, String ior, int minor) {
        return HopHelper.narrow(client.string_to_object(IorRewrite.to(client, ior, recorder.port(), minor)));
    }

    /** The class {@code minor}'s tests bind: a known class, so the context's body is known. */
    private static long classFor(int minor, int n) {
        return ThreadClass.of(0x2222, 100 * (minor + 1) + n);
    }

    /** The request's only identity context, checked well-formed; returns the class it carries. */
    private static long identity(GiopRecorder.Request r) {
        List<GiopRecorder.Context> ids = r.contexts(IdentityContext.ID);
        assertEquals(1, ids.size(), "identity contexts in " + r.operation() + ": " + r.contexts());
        byte[] body = ids.get(0).data();
        assertEquals(IdentityContext.LENGTH, body.length);
        long c = IdentityContext.decode(body);
        assertTrue(ThreadClass.isValid(c), IdentityContext.problem(body));
        if (r.minor() == 2 && r.bodyAt() < r.message().length) {
            assertEquals(0, r.bodyAt() % 8, "GIOP 1.2 body 8-aligned");
        }
        return c;
    }

    /**
     * The {@code count}th request of the test's own calls (dthreads' site hello request, which the first
     * request to a peer triggers, is checked for its identity context and skipped).
     */
    private static GiopRecorder.Request last(GiopRecorder recorder, int count) {
        List<GiopRecorder.Request> all = Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> own(recorder), l -> l.size() >= count);
        assertEquals(count, all.size(), all.toString());
        return all.get(count - 1);
    }

    private static List<GiopRecorder.Request> own(GiopRecorder recorder) {
        List<GiopRecorder.Request> all = recorder.requests();
        all.stream().filter(r -> r.operation().equals(MonitorRequestHook.OPERATION)).forEach(JacorbInlineContextTest::identity);
        return all.stream().filter(r -> !r.operation().equals(MonitorRequestHook.OPERATION)).toList();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void everyRequestCarriesOneIdentityContextWithTheCallersClassAndAnAlignedBody(int minor) throws Exception {
        ORB client = client(false);
        try (GiopRecorder recorder = recorderFor(hopIor); GiopRecorder sinkRecorder = recorderFor(sinkIor)) {
            Hop hop = hop(client, recorder, hopIor, minor);
            long x = classFor(minor, 1);
            try (ClassScope s = DThreads.bind(x)) {
                // first request on the connection, with dthreads' hello
                assertEquals(x, hop.seen());
                GiopRecorder.Request first = last(recorder, 1);
                assertEquals(minor, first.minor());
                assertEquals(x, identity(first));
                // JacORB's code-set context, sent if the request connects the socket (racing JacORB's reader)
                assertEquals(x, seenWithCodeSetContext((ObjectImpl) hop));
                GiopRecorder.Request codeSets = last(recorder, 2);
                assertEquals(x, identity(codeSets));
                assertEquals(1, codeSets.contexts(TAG_CODE_SETS.value).size(), codeSets.contexts().toString());
                // then the inline list alone: one context, no padding context even in GIOP 1.0/1.1
                assertEquals(x, hop.seen());
                GiopRecorder.Request second = last(recorder, 3);
                assertEquals(x, identity(second));
                if (!PORTABLE) {
                    assertEquals(1, second.contexts().size(), second.contexts().toString());
                }
                assertEquals(second.message().length, second.bodyAt(), "seen() has no arguments");

                // a 1 KB argument after a long long, through DII to a DSI servant
                byte[] data = new byte[1024];
                for (int i = 0; i < data.length; i++) {
                    data[i] = (byte) (i * 7 + minor);
                }
                long a = 0x0102030405060708L + minor;
                org.omg.CORBA.Object target = client.string_to_object(IorRewrite.to(client, sinkIor, sinkRecorder.port(), minor));
                org.omg.CORBA.Request call = target._request("take");
                call.add_in_arg().insert_longlong(a);
                OctetSeqHelper.insert(call.add_in_arg(), data);
                call.set_return_type(client.get_primitive_tc(TCKind.tk_longlong));
                call.invoke();
                assertEquals(x, call.return_value().extract_longlong());
                assertEquals(a, sink.lastA);
                assertArrayEquals(data, sink.lastData);
                GiopRecorder.Request take = last(sinkRecorder, 1);
                assertEquals("take", take.operation());
                assertEquals(x, identity(take));
                GiopRecorder.Cdr body = take.body();
                assertEquals(a, body.longlong());
                assertArrayEquals(data, body.octets(body.ulong()));
                assertEquals(0, body.remaining(), "the message ends with the argument");
            }

            // a oneway: a fresh class of this site, the one the servant runs under
            long before = hop.lastOneway();
            hop.fire();
            GiopRecorder.Request fire = Awaitility.await().atMost(Duration.ofSeconds(10))
                    .until(() -> own(recorder), l -> l.stream().anyMatch(r -> r.operation().equals("fire")))
                    .stream().filter(r -> r.operation().equals("fire")).findFirst().orElseThrow();
            assertEquals(0, fire.responseFlags() & 1, "no response expected");
            long fresh = identity(fire);
            assertNotEquals(x, fresh);
            assertEquals(DThreads.siteId(), ThreadClass.siteId(fresh));
            assertEquals(fresh, (long) Awaitility.await().atMost(Duration.ofSeconds(10)).until(hop::lastOneway, v -> v != before));
        } finally {
            Orbs.shutdown(client);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void anApplicationsInterceptorAddsItsContextAndTheIdentityContextStaysOne(int minor) throws Exception {
        ORB client = client(true);
        try (GiopRecorder recorder = recorderFor(hopIor)) {
            Hop hop = hop(client, recorder, hopIor, minor);
            long x = classFor(minor, 2);
            try (ClassScope s = DThreads.bind(x)) {
                for (int i = 1; i <= 3; i++) {
                    assertEquals(x, hop.seen());
                    GiopRecorder.Request r = last(recorder, i);
                    assertEquals(x, identity(r));
                    List<GiopRecorder.Context> extra = r.contexts(ExtraContextInitializer.ID);
                    assertEquals(1, extra.size(), r.contexts().toString());
                    assertArrayEquals(ExtraContextInitializer.BODY, extra.get(0).data());
                    assertEquals(IdentityContext.ID, r.contexts().get(0).id(), "the identity context first, as before");
                }
            }
        } finally {
            Orbs.shutdown(client);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2})
    void aPeerWithoutDthreadsServesTheRequestAsAnOrdinaryOne(int minor) throws Exception {
        ORB client = client(false);
        try (GiopRecorder recorder = new GiopRecorder("127.0.0.1", IorRewrite.port(plainServer, plainHopIor))) {
            Hop hop = hop(client, recorder, plainHopIor, minor);
            long x = classFor(minor, 3);
            try (ClassScope s = DThreads.bind(x)) {
                for (int i = 1; i <= 2; i++) {
                    assertNotEquals(x, hop.seen(), "a plain JacORB ignores the context");
                    assertEquals(x, identity(last(recorder, i)));
                }
            }
        } finally {
            Orbs.shutdown(client);
        }
    }

    @Test
    void aSyncNoneOnewayIsCopiedAndSentFromAnotherThreadWithOneIdentityContext() throws Exception {
        ORB client = client(false);
        try (GiopRecorder recorder = recorderFor(hopIor)) {
            Hop hop = hop(client, recorder, hopIor, 2);
            hop.seen(); // the connection's first request
            Any scope = client.create_any();
            SyncScopeHelper.insert(scope, SYNC_NONE.value);
            Policy policy = client.create_policy(SYNC_SCOPE_POLICY_TYPE.value, scope);
            Hop none = HopHelper.unchecked_narrow(hop._set_policy_override(new Policy[] {policy}, SetOverrideType.SET_OVERRIDE));
            RequestOutputStream ros = (RequestOutputStream) ((ObjectImpl) none)._request("fire", false);
            assertFalse(JacorbInlineContext.inlined(ros), "not inlined: JacORB sends a copy from another thread");
            long before = hop.lastOneway();
            none.fire();
            GiopRecorder.Request fire = Awaitility.await().atMost(Duration.ofSeconds(10))
                    .until(() -> own(recorder), l -> l.stream().anyMatch(r -> r.operation().equals("fire")))
                    .stream().filter(r -> r.operation().equals("fire")).findFirst().orElseThrow();
            long fresh = identity(fire);
            assertEquals(fresh, (long) Awaitility.await().atMost(Duration.ofSeconds(10)).until(hop::lastOneway, v -> v != before));
        } finally {
            Orbs.shutdown(client);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void theInlineListIsTakenOutWhenAContextIsAddedOrTheBodyNeverComes(int minor) throws Exception {
        Assumptions.assumeFalse(PORTABLE, "the fast path's streams only");
        ORB client = client(false);
        try (GiopRecorder recorder = recorderFor(hopIor)) {
            ObjectImpl hop = (ObjectImpl) hop(client, recorder, hopIor, minor);
            long x = classFor(minor, 4);
            try (ClassScope s = DThreads.bind(x)) {
                // filled, then a context added before the send: the identity context moves to JacORB's list
                RequestOutputStream ros = (RequestOutputStream) hop._request("seen", true);
                assertTrue(JacorbInlineContext.inlined(ros), "the fast path writes the list inline");
                int inlineSize = ros.size();
                JacorbInlineContext.put(ros, IdentityContext.encode(classFor(minor, 5)));
                assertTrue(JacorbInlineContext.inlined(ros), "the body goes into the header");
                ros.addServiceContext(new ServiceContext(0x7E570002, new byte[] {9}));
                assertFalse(JacorbInlineContext.inlined(ros));
                assertEquals(inlineSize - JacorbInlineContext.EXTRA_BYTES, ros.size());
                assertEquals(x, call(hop, ros), "the send's own body (the caller's class) replaced the earlier one");
                GiopRecorder.Request r = last(recorder, 1);
                assertEquals(x, identity(r));
                assertEquals(1, r.contexts(0x7E570002).size(), r.contexts().toString());

                // a placeholder never filled is taken out; the send then adds the context to JacORB's list
                RequestOutputStream never = (RequestOutputStream) hop._request("seen", true);
                int size = never.size();
                JacorbInlineContext.abandon(never);
                assertFalse(JacorbInlineContext.inlined(never), "an unfilled placeholder never leaves");
                assertEquals(size - JacorbInlineContext.EXTRA_BYTES, never.size());
                assertEquals(x, call(hop, never));
                assertEquals(x, identity(last(recorder, 2)));
            }
        } finally {
            Orbs.shutdown(client);
        }
    }

    /** {@code seen()} with the code-set context JacORB adds to a connection's first request. */
    private static long seenWithCodeSetContext(ObjectImpl hop) throws Exception {
        RequestOutputStream ros = (RequestOutputStream) hop._request("seen", true);
        Field negotiated = GIOPConnection.class.getDeclaredField("tcs_negotiated");
        negotiated.setAccessible(true);
        negotiated.setBoolean(ros.getConnection().getGIOPConnection(), false); // as if this send connected
        return call(hop, ros);
    }

    private static long call(ObjectImpl target, RequestOutputStream request) throws Exception {
        org.omg.CORBA.portable.InputStream in = target._invoke(request);
        try {
            return in.read_longlong();
        } finally {
            target._releaseReply(in);
        }
    }
}
