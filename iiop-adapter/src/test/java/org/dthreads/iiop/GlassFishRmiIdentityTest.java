package org.dthreads.iiop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.dthreads.ClassScope;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.iiop.internal.ServerIdentityInterceptor;
import org.dthreads.iiop.rmi.HopRemote;
import org.dthreads.iiop.rmi.HopRemoteImpl;
import org.dthreads.iiop.rmi.RmiIiop;
import org.dthreads.iiop.support.HopServant;
import org.dthreads.iiop.support.Orbs;
import org.dthreads.iiop.support.RmiDelegates;
import org.dthreads.iiop.testidl.Hop;
import org.dthreads.iiop.testidl.HopHelper;
import org.dthreads.internal.KernelLink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;

/** Identity over RMI-IIOP on the GlassFish ORB (dynamic stubs), two ORBs in this JVM. */
class GlassFishRmiIdentityTest {

    private static ORB orbA;
    private static ORB orbB;
    private static HopRemoteImpl implA;
    private static HopRemoteImpl implB;
    private static HopRemote aFromA;
    private static HopRemote bFromA;

    @BeforeAll
    static void sites() {
        RmiDelegates.install();
        orbA = Orbs.init(Orbs.Kind.GLASSFISH, true);
        orbB = Orbs.init(Orbs.Kind.GLASSFISH, true);
        Orbs.rootPoa(orbA);
        Orbs.rootPoa(orbB);
        implA = new HopRemoteImpl();
        implB = new HopRemoteImpl();
        String iorA = RmiIiop.export(orbA, implA);
        String iorB = RmiIiop.export(orbB, implB);
        aFromA = RmiIiop.hop(orbA, iorA);
        bFromA = RmiIiop.hop(orbA, iorB);
    }

    @AfterAll
    static void stop() {
        RmiIiop.unexport(implA);
        RmiIiop.unexport(implB);
        Orbs.shutdown(orbA);
        Orbs.shutdown(orbB);
    }

    @AfterEach
    void callerBindingUnchanged() {
        assertEquals(ThreadClass.NONE, KernelLink.boundClass());
        assertEquals(0, ServerIdentityInterceptor.threadState()[0]);
    }

    @Test
    void servantSeesTheCallersClass() throws Exception {
        assertEquals(KernelLink.currentClass(), bFromA.seen());
        long x = ThreadClass.of(0x0bad_cafe, 50);
        try (ClassScope s = DThreads.bind(x)) {
            assertEquals(x, bFromA.seen());
        }
    }

    @Test
    void nestedChainKeepsTheClassAtEveryHop() throws Exception {
        long me = KernelLink.currentClass();
        assertEquals(me, bFromA.chainSame(aFromA, bFromA, 1)); // A -> B -> A
        assertEquals(me, bFromA.chainSame(aFromA, bFromA, 3)); // A -> B -> A -> B -> A
        long x = ThreadClass.of(0x0bad_cafe, 51);
        try (ClassScope s = DThreads.bind(x)) {
            assertEquals(x, bFromA.chainSame(aFromA, bFromA, 2));
        }
    }

    @Test
    void workerThreadsReturnToTheirPreviousBinding() throws Exception {
        for (int i = 0; i < 50; i++) {
            assertEquals(1, bFromA.threadDepth(), "call " + i);
            assertEquals(ThreadClass.NONE, bFromA.threadPrevious(), "call " + i);
            if (i % 10 == 0) {
                bFromA.chainSame(aFromA, bFromA, 2);
            }
        }
    }

    /** Same ORB, default settings: the GlassFish ORB does not optimize (ORBAllowLocalOptimization=false), interceptors run. */
    @Test
    void collocatedNonOptimizedCallKeepsIdentity() throws Exception {
        long me = KernelLink.currentClass();
        assertEquals(me, aFromA.seen());
        assertEquals(1, aFromA.threadDepth(), "served through the interceptors");
        assertEquals(ThreadClass.NONE, aFromA.threadPrevious());
        long x = ThreadClass.of(0x0bad_cafe, 52);
        try (ClassScope s = DThreads.bind(x)) {
            assertEquals(x, aFromA.seen());
            assertEquals(x, KernelLink.boundClass());
        }
    }

    /** Same ORB with local optimization: the servant runs on the caller's thread, no interceptor runs. */
    @Test
    void collocatedOptimizedCallKeepsIdentity() throws Exception {
        java.util.Properties p = Orbs.props(Orbs.Kind.GLASSFISH, true);
        p.setProperty("com.sun.corba.ee.ORBAllowLocalOptimization", "true");
        ORB orbC = Orbs.init(p);
        HopRemoteImpl impl = new HopRemoteImpl();
        try {
            Orbs.rootPoa(orbC);
            HopRemote c = RmiIiop.hop(orbC, RmiIiop.export(orbC, impl));
            long me = KernelLink.currentClass();
            assertEquals(me, c.seen());
            assertEquals(0, c.threadDepth(), "optimized: no interceptor, the caller's own thread");
            long x = ThreadClass.of(0x0bad_cafe, 54);
            try (ClassScope s = DThreads.bind(x)) {
                assertEquals(x, c.seen());
                assertEquals(x, c.chainSame(aFromA, c, 2));
            }
        } finally {
            RmiIiop.unexport(impl);
            Orbs.shutdown(orbC);
        }
    }

    /**
     * A JacORB-generated skeleton calls {@code createReply()} before the servant, and the GlassFish
     * ORB runs {@code send_reply} inside {@code createReply()}. The adapter keeps the binding until
     * the thread's next request in that case, so the servant still runs as the caller's class, and
     * the next request on the worker starts clean.
     */
    @Test
    void jacorbSkeletonsOnGlassFishServersKeepIdentity() throws Exception {
        ORB server = Orbs.init(Orbs.Kind.GLASSFISH, true);
        ORB server2 = Orbs.init(Orbs.Kind.GLASSFISH, true);
        try {
            Hop hop = HopHelper.narrow(orbA.string_to_object(
                    server.object_to_string(Orbs.rootPoa(server).servant_to_reference(new HopServant()))));
            Hop hop2 = HopHelper.narrow(orbA.string_to_object(
                    server2.object_to_string(Orbs.rootPoa(server2).servant_to_reference(new HopServant()))));
            long me = KernelLink.currentClass();
            for (int i = 0; i < 30; i++) {
                assertEquals(me, hop.seen(), "call " + i);
                assertArrayEquals(new long[] {1, ThreadClass.NONE, me}, hop.threadState(), "call " + i);
            }
            assertArrayEquals(new long[] {me, me, me, me}, hop.chain(hop2, hop, 3));
            long x = ThreadClass.of(0x0bad_cafe, 53);
            try (ClassScope s = DThreads.bind(x)) {
                assertArrayEquals(new long[] {x, x, x}, hop2.chain(hop, hop2, 2));
            }
            assertArrayEquals(new long[] {1, ThreadClass.NONE, me}, hop.threadState());
            hop.fire();
            long fired = org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(hop::lastOneway, v -> v != 0);
            assertNotEquals(me, fired);
        } finally {
            Orbs.shutdown(server);
            Orbs.shutdown(server2);
        }
    }
}
