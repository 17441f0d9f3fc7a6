package org.dthreads.iiop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.awaitility.Awaitility;
import org.dthreads.ClassScope;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.iiop.support.HopServant;
import org.dthreads.iiop.support.Orbs;
import org.dthreads.iiop.support.RecordingInitializer;
import org.dthreads.iiop.testidl.Hop;
import org.dthreads.iiop.testidl.HopHelper;
import org.dthreads.internal.KernelLink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;

/**
 * Identity over JacORB, two ORBs ("sites" A and B) in this JVM; the test thread is a thread of A.
 * The multi-JVM cases are in {@link MultiJvmIdentityTest}.
 */
class JacorbIdentityTest {

    private static ORB orbA;
    private static ORB orbB;
    private static POA poaA;
    private static Hop aFromA; // collocated
    private static Hop bFromA;
    private static Hop aRefForB;
    private static Hop bRefForB;

    @BeforeAll
    static void sites() throws Exception {
        orbA = Orbs.init(Orbs.Kind.JACORB, true);
        orbB = Orbs.init(Orbs.Kind.JACORB, true);
        Orbs.runInBackground(orbA, "orbA");
        Orbs.runInBackground(orbB, "orbB");
        poaA = Orbs.rootPoa(orbA);
        String iorA = orbA.object_to_string(poaA.servant_to_reference(new HopServant()));
        String iorB = orbB.object_to_string(Orbs.rootPoa(orbB).servant_to_reference(new HopServant()));
        aFromA = HopHelper.narrow(orbA.string_to_object(iorA));
        bFromA = HopHelper.narrow(orbA.string_to_object(iorB));
        aRefForB = aFromA;
        bRefForB = bFromA;
    }

    @AfterAll
    static void stop() {
        Orbs.shutdown(orbA);
        Orbs.shutdown(orbB);
    }

    @AfterEach
    void callerBindingUnchanged() {
        assertEquals(ThreadClass.NONE, KernelLink.boundClass());
        assertEquals(0, org.dthreads.iiop.internal.ServerIdentityInterceptor.threadState()[0]);
    }

    @Test
    void servantSeesTheCallersClass() {
        assertEquals(KernelLink.currentClass(), bFromA.seen());
    }

    @Test
    void servantSeesABoundClass() {
        long x = ThreadClass.of(0x0bad_cafe, 42);
        try (ClassScope s = DThreads.bind(x)) {
            assertEquals(x, bFromA.seen());
            assertEquals(x, KernelLink.boundClass());
        }
    }

    @Test
    void nestedChainKeepsTheClassAtEveryHop() {
        long me = KernelLink.currentClass();
        // A -> B -> A
        assertArrayEquals(new long[] {me, me}, bFromA.chain(aRefForB, bRefForB, 1));
        // A -> B -> A -> B -> A
        assertArrayEquals(new long[] {me, me, me, me}, bFromA.chain(aRefForB, bRefForB, 3));
        assertEquals(me, bFromA.chainSame(aRefForB, bRefForB, 3));
    }

    @Test
    void nestedChainOfABoundCallerKeepsThatClass() {
        long x = ThreadClass.of(0x0bad_cafe, 43);
        try (ClassScope s = DThreads.bind(x)) {
            assertArrayEquals(new long[] {x, x, x}, bFromA.chain(aRefForB, bRefForB, 2));
        }
    }

    @Test
    void onewayRunsAsAFreshClass() {
        long me = KernelLink.currentClass();
        long before = bFromA.lastOneway();
        bFromA.fire();
        long first = Awaitility.await().atMost(Duration.ofSeconds(10)).until(bFromA::lastOneway, v -> v != before);
        bFromA.fire();
        long second = Awaitility.await().atMost(Duration.ofSeconds(10)).until(bFromA::lastOneway, v -> v != first);
        assertTrue(ThreadClass.isValid(first) && ThreadClass.isValid(second));
        assertNotEquals(me, first);
        assertNotEquals(first, second);
        assertEquals(DThreads.siteId(), ThreadClass.siteId(first), "allocated by the sender");
    }

    @Test
    void workerThreadsReturnToTheirPreviousBinding() {
        long me = KernelLink.currentClass();
        for (int i = 0; i < 50; i++) {
            long[] state = bFromA.threadState();
            // one adapter binding, nothing bound underneath it: no binding leaked by an earlier request
            assertArrayEquals(new long[] {1, ThreadClass.NONE, me}, state, "call " + i);
            if (i % 10 == 0) {
                bFromA.chain(aRefForB, bRefForB, 2);
                bFromA.fire();
            }
        }
    }

    @Test
    void collocatedOptimizedCallKeepsIdentity() {
        long me = KernelLink.currentClass();
        assertTrue(((org.omg.CORBA.portable.ObjectImpl) aFromA)._is_local(), "JacORB optimizes this call");
        assertEquals(me, aFromA.seen());
        // served on this very thread: the adapter binding sits on top of the caller's (none)
        assertArrayEquals(new long[] {1, ThreadClass.NONE, me}, aFromA.threadState());
        long x = ThreadClass.of(0x0bad_cafe, 44);
        try (ClassScope s = DThreads.bind(x)) {
            assertEquals(x, aFromA.seen());
            assertArrayEquals(new long[] {1, x, x}, aFromA.threadState());
            assertEquals(x, KernelLink.boundClass());
        }
    }

    @Test
    void collocatedNonOptimizedCallKeepsIdentity() throws Exception {
        Properties p = Orbs.props(Orbs.Kind.JACORB, true);
        p.setProperty("jacorb.isLocalHistoricalInterceptors", "true");
        ORB orbC = Orbs.init(p);
        try {
            Orbs.runInBackground(orbC, "orbC");
            Hop c = HopHelper.narrow(orbC.string_to_object(
                    orbC.object_to_string(Orbs.rootPoa(orbC).servant_to_reference(new HopServant()))));
            // JacORB stops optimizing only when the ORB has interceptors: on the fast path it has none, and the
            // call is served on this thread (nested binding), as in collocatedOptimizedCallKeepsIdentity
            boolean portable = "portable".equals(System.getProperty("dthreads.iiop.path"));
            assertEquals(!portable, ((org.omg.CORBA.portable.ObjectImpl) c)._is_local(),
                    portable ? "not optimized: goes through the ORB's own transport" : "fast path: optimized");
            long me = KernelLink.currentClass();
            assertEquals(me, c.seen());
            assertArrayEquals(new long[] {1, ThreadClass.NONE, me}, c.threadState());
            long x = ThreadClass.of(0x0bad_cafe, 45);
            try (ClassScope s = DThreads.bind(x)) {
                assertEquals(x, c.seen());
            }
        } finally {
            Orbs.shutdown(orbC);
        }
    }

    @Test
    void locationForwardRetryKeepsTheClass() throws Exception {
        Properties p = Orbs.props(Orbs.Kind.JACORB, true);
        p.setProperty(RecordingInitializer.PROPERTY, "");
        ORB orbF = Orbs.init(p);
        Properties cp = Orbs.props(Orbs.Kind.JACORB, true);
        cp.setProperty("jacorb.default_sync_scope", "TARGET"); // oneways wait for the target: forwards reach the client
        ORB client = Orbs.init(cp);
        try {
            Orbs.runInBackground(orbF, "orbF");
            POA poa = Orbs.rootPoa(orbF);
            HopServant from = new HopServant();
            HopServant to = new HopServant();
            org.omg.CORBA.Object fromRef = poa.servant_to_reference(from);
            org.omg.CORBA.Object toRef = poa.servant_to_reference(to);
            RecordingInitializer.forwardTo = toRef;
            RecordingInitializer.forwardFrom = poa.servant_to_id(from);
            RecordingInitializer.RECORDED.clear();
            Hop hop = HopHelper.unchecked_narrow(client.string_to_object(orbF.object_to_string(fromRef)));

            long me = KernelLink.currentClass();
            assertEquals(me, hop.seen());
            List<String> seen = RecordingInitializer.RECORDED.stream().filter(s -> s.startsWith("seen ")).toList();
            assertEquals(List.of("seen " + Long.toHexString(me), "seen " + Long.toHexString(me)), seen,
                    "the forwarded request and its retry both carry the caller's class");

            RecordingInitializer.RECORDED.clear();
            RecordingInitializer.forwardFrom = poa.servant_to_id(from);
            Hop hop2 = HopHelper.unchecked_narrow(client.string_to_object(orbF.object_to_string(fromRef)));
            hop2.fire();
            long fired = Awaitility.await().atMost(Duration.ofSeconds(10)).until(to::lastOneway, v -> v != 0);
            List<String> fires = RecordingInitializer.RECORDED.stream().filter(s -> s.startsWith("fire ")).toList();
            assertEquals(2, fires.size(), fires.toString());
            // a SYNC_WITH_TARGET oneway is a call of the caller's class (its caller waits for the servant), and its
            // retry after the forward carries it again (JacorbSyncScopeIdentityTest: the other scopes, fresh classes)
            assertEquals(fires.get(0), fires.get(1), "a forwarded oneway keeps its class: " + fires);
            assertEquals("fire " + Long.toHexString(fired), fires.get(1));
            assertEquals(me, fired);
        } finally {
            RecordingInitializer.forwardFrom = null;
            Orbs.shutdown(client);
            Orbs.shutdown(orbF);
        }
    }
}
