package org.dthreads.iiop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.awaitility.Awaitility;
import org.dthreads.ClassScope;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.iiop.internal.IdentityContext;
import org.dthreads.iiop.internal.SiteHelloContext;
import org.dthreads.iiop.rmi.HopRemote;
import org.dthreads.iiop.rmi.HopRemoteImpl;
import org.dthreads.iiop.rmi.RmiIiop;
import org.dthreads.iiop.support.HopServant;
import org.dthreads.iiop.support.Orbs;
import org.dthreads.iiop.support.RawContextInitializer;
import org.dthreads.iiop.support.RmiDelegates;
import org.dthreads.iiop.support.SiteProcess;
import org.dthreads.iiop.testidl.Hop;
import org.dthreads.iiop.testidl.HopHelper;
import org.dthreads.internal.KernelLink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;

/**
 * Sites in separate JVMs: this JVM is site A (a JacORB ORB and a GlassFish ORB); child JVMs are
 * site B on JacORB (JDK 17 and JDK 25) and site B on the GlassFish ORB (RMI-IIOP).
 */
class MultiJvmIdentityTest {

    private static SiteProcess jacorbB;
    private static SiteProcess glassfishB;
    private static ORB jacorbA;
    private static ORB glassfishA;
    private static ORB raw;
    private static HopRemoteImpl rmiImplA;
    private static Hop aOnJacorb;          // A's IDL servant (also answers the RMI repository id)
    private static HopRemote aOnGlassFish; // A's RMI-IIOP servant, stub from the GlassFish ORB

    @BeforeAll
    static void sites() throws Exception {
        RmiDelegates.install();
        jacorbB = SiteProcess.start("jacorb");
        glassfishB = SiteProcess.start("glassfish-rmi");
        jacorbA = Orbs.init(Orbs.Kind.JACORB, true);
        Orbs.runInBackground(jacorbA, "jacorbA");
        aOnJacorb = HopHelper.narrow(jacorbA.string_to_object(jacorbA.object_to_string(
                Orbs.rootPoa(jacorbA).servant_to_reference(new HopServant.CrossOrb()))));
        glassfishA = Orbs.init(Orbs.Kind.GLASSFISH, true);
        Orbs.rootPoa(glassfishA);
        rmiImplA = new HopRemoteImpl();
        aOnGlassFish = RmiIiop.hop(glassfishA, RmiIiop.export(glassfishA, rmiImplA));
        Properties rp = Orbs.props(Orbs.Kind.JACORB, false);
        rp.setProperty(RawContextInitializer.PROPERTY, "");
        raw = Orbs.init(rp);
    }

    @AfterAll
    static void stop() {
        try {
            RmiIiop.unexport(rmiImplA);
            Orbs.shutdown(raw);
            Orbs.shutdown(jacorbA);
            Orbs.shutdown(glassfishA);
        } finally {
            if (jacorbB != null) {
                jacorbB.close();
            }
            if (glassfishB != null) {
                glassfishB.close();
            }
        }
    }

    private static Hop jacorbStub(String ior) {
        return HopHelper.narrow(jacorbA.string_to_object(ior));
    }

    @Test
    void jacorbChainAcrossJvms() {
        Hop b = jacorbStub(jacorbB.ior());
        long me = KernelLink.currentClass();
        assertEquals(me, b.seen());
        assertArrayEquals(new long[] {me, me}, b.chain(aOnJacorb, b, 1));          // A -> B -> A
        assertArrayEquals(new long[] {me, me, me, me}, b.chain(aOnJacorb, b, 3));  // A -> B -> A -> B -> A
        long x = ThreadClass.of(0x0bad_cafe, 60);
        try (ClassScope s = DThreads.bind(x)) {
            assertArrayEquals(new long[] {x, x, x}, b.chain(aOnJacorb, b, 2));
        }
        long[] state = b.threadState();
        assertArrayEquals(new long[] {1, ThreadClass.NONE, me}, state, "B's worker thread carries no leaked binding");
    }

    @Test
    void jacorbOnJdk25() {
        String home = System.getProperty("dthreads.test.jdk25");
        assumeTrue(home != null && SiteProcess.hasJava(Path.of(home)), "no JDK 25 at " + home);
        try (SiteProcess b25 = SiteProcess.start(Path.of(home), "jacorb")) {
            assertTrue(b25.output().stream().anyMatch(l -> l.startsWith("SITE ") && l.endsWith(" java 25")), b25.output().toString());
            Hop b = jacorbStub(b25.ior());
            long me = KernelLink.currentClass();
            assertEquals(me, b.seen());
            assertArrayEquals(new long[] {me, me, me}, b.chain(aOnJacorb, b, 2)); // A(17) -> B(25) -> A(17) -> B(25)
        }
    }

    @Test
    void glassFishRmiIiopChainAcrossJvms() throws Exception {
        HopRemote b = RmiIiop.hop(glassfishA, glassfishB.ior());
        long me = KernelLink.currentClass();
        assertEquals(me, b.seen());
        assertEquals(me, b.chainSame(aOnGlassFish, b, 1));
        assertEquals(me, b.chainSame(aOnGlassFish, b, 3));
        assertEquals(1, b.threadDepth());
        assertEquals(ThreadClass.NONE, b.threadPrevious());
    }

    @Test
    void jacorbClientGlassFishServerAndBack() {
        // A (JacORB, IDL) -> B (GlassFish, RMI-IIOP) -> A (JacORB, IDL)
        Hop b = HopHelper.unchecked_narrow(jacorbA.string_to_object(glassfishB.ior()));
        long me = KernelLink.currentClass();
        assertEquals(me, b.seen());
        assertEquals(me, b.chainSame(aOnJacorb, b, 1));
        assertEquals(me, b.chainSame(aOnJacorb, b, 3));
    }

    @Test
    void glassFishClientJacorbServerAndBack() throws Exception {
        // A (GlassFish, RMI-IIOP) -> B (JacORB, IDL) -> A (GlassFish, RMI-IIOP)
        HopRemote b = RmiIiop.hop(glassfishA, jacorbB.ior());
        long me = KernelLink.currentClass();
        assertEquals(me, b.seen());
        assertEquals(me, b.chainSame(aOnGlassFish, b, 1));
        assertEquals(me, b.chainSame(aOnGlassFish, b, 3));
        // the GlassFish ORB with JacORB's portable IDL stubs, too
        Hop idl = HopHelper.unchecked_narrow(glassfishA.string_to_object(jacorbB.ior()));
        assertEquals(me, idl.seen());
    }

    @Test
    void malformedContextsOnJacorbServer() {
        malformedContexts(jacorbB);
    }

    @Test
    void malformedContextsOnGlassFishServer() {
        malformedContexts(glassfishB);
    }

    private static void malformedContexts(SiteProcess site) {
        HexFormat hex = HexFormat.of();
        Hop h = HopHelper.unchecked_narrow(raw.string_to_object(site.ior()));
        try {
            RawContextInitializer.body = null;
            long noContext = h.seen();
            assertTrue(ThreadClass.isValid(noContext));
            int serverSite = ThreadClass.siteId(noContext);
            assertNotEquals(DThreads.siteId(), serverSite);

            List<String> bad = List.of("", "00", "00000000000000000000002a000000", "00000000000000000000002a0000000700",
                    "02000000000000000000002a00000007", "00000000000000000000000000000000", "00000000000000000000000000000007");
            Set<Long> seen = new HashSet<>();
            seen.add(noContext);
            for (String b : bad) {
                RawContextInitializer.body = hex.parseHex(b);
                long c = h.seen();
                assertTrue(ThreadClass.isValid(c), b);
                assertEquals(serverSite, ThreadClass.siteId(c), "a fresh class of the server: " + b);
                assertTrue(seen.add(c), "fresh, never reused: " + b);
            }
            // well-formed little-endian body with garbage padding, as omniORB sends it
            long x = ThreadClass.of(0x2a, 7);
            byte[] le = IdentityContext.encode(x, true);
            for (int i = 1; i < 8; i++) {
                le[i] = (byte) (0xA0 + i);
            }
            RawContextInitializer.body = le;
            assertEquals(x, h.seen());
            RawContextInitializer.body = IdentityContext.encode(x);
            for (int i = 0; i < 20; i++) {
                assertEquals(x, h.seen(), "server still serves normally");
            }
            // site hellos (context 0x44540002, announced in the identity context's padding): malformed, then absent
            byte[] flagged = IdentityContext.encode(x);
            flagged[1] = SiteHelloContext.FLAG;
            RawContextInitializer.body = flagged;
            for (String b : List.of("", "00", "000000000000002a5d2c9e0411f3a7", "020000000000002a5d2c9e0411f3a7b6",
                    "00000000000000005d2c9e0411f3a7b6", "000000000000002a0000000000000000")) {
                RawContextInitializer.hello = hex.parseHex(b);
                assertEquals(x, h.seen(), "a malformed site hello changes nothing: " + b);
            }
            RawContextInitializer.hello = null;
            assertEquals(x, h.seen(), "an announced site hello that is not there changes nothing");
        } finally {
            RawContextInitializer.body = null;
            RawContextInitializer.hello = null;
        }
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> count(site, "malformed site hello service context") >= 1);
        assertEquals(1, count(site, "malformed site hello service context 0x44540002"), "rate-limited: " + site.output());
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> count(site, "malformed identity service context") >= 1);
        assertEquals(1, count(site, "malformed identity service context"), "rate-limited to one line: " + site.output());
        assertEquals(0, site.output().stream().filter(l -> l.contains("Exception") || l.contains("ERROR")).count(),
                site.output().toString());
    }

    private static long count(SiteProcess site, String text) {
        return site.output().stream().filter(l -> l.contains(text)).count();
    }
}
