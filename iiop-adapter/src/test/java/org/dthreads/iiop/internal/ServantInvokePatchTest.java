package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.dthreads.ThreadClass;
import org.dthreads.internal.KernelLink;
import org.dthreads.internal.SiteHelloAnswer;
import org.dthreads.iiop.support.HopServant;
import org.dthreads.iiop.support.Orbs;
import org.dthreads.monitor.RemoteMonitorException;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.util.CheckClassAdapter;
import org.omg.CORBA.ORB;
import org.omg.CORBA.portable.ObjectImpl;
import org.omg.CORBA.portable.OutputStream;

/**
 * The skeleton patch and the {@code _dthreads_monitor} request end to end in one JVM: a JacORB server ORB
 * serving a servant whose skeleton ({@code HopPOA}, as JacORB's IDL compiler generates it) was patched and
 * loaded by a child loader, as the agent would patch it; a second ORB as the client, through
 * {@link IiopMonitorTransport}. The servant's monitor is emulated here through
 * {@code -Ddthreads.monitor.emulated} (surefire configuration): no agent rewrites it.
 */
class ServantInvokePatchTest {

    static final String POA = "org.dthreads.iiop.testidl.HopPOA";
    static final String SERVANT = "org.dthreads.iiop.support.HopServant";
    static final String TIE = "com.sun.corba.ee.impl.presentation.rmi.ReflectiveTie";
    static final long CLS = ThreadClass.of(0x2a, 7);

    static ORB server;
    static ORB client;
    static ObjectImpl patched;
    static ObjectImpl unpatched;

    static byte[] bytes(String className) throws IOException {
        try (InputStream in = ServantInvokePatchTest.class.getClassLoader()
                .getResourceAsStream(className.replace('.', '/') + ".class")) {
            assertNotNull(in, className);
            return in.readAllBytes();
        }
    }

    static String verify(byte[] patchedBytes) {
        StringWriter out = new StringWriter();
        CheckClassAdapter.verify(new ClassReader(patchedBytes), ServantInvokePatchTest.class.getClassLoader(), false,
                new PrintWriter(out));
        return out.toString();
    }

    /** Defines the given classes from the given bytes, child-first; everything else from the parent. */
    static final class PatchedLoader extends ClassLoader {
        private final Map<String, byte[]> classes;

        PatchedLoader(Map<String, byte[]> classes) {
            super(ServantInvokePatchTest.class.getClassLoader());
            this.classes = classes;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                byte[] b = classes.get(name);
                if (b == null) {
                    return super.loadClass(name, resolve);
                }
                Class<?> c = findLoadedClass(name);
                return c != null ? c : defineClass(name, b, 0, b.length);
            }
        }
    }

    @BeforeAll
    static void start() throws Exception {
        server = Orbs.init(Orbs.Kind.JACORB, true);
        client = Orbs.init(Orbs.Kind.JACORB, true);
        byte[] poa = ServantInvokePatch.patch(bytes(POA));
        PatchedLoader loader = new PatchedLoader(Map.of(POA, poa, SERVANT, bytes(SERVANT)));
        Object instance = Class.forName(SERVANT, true, loader).getConstructor().newInstance();
        org.omg.PortableServer.Servant s = (org.omg.PortableServer.Servant) instance;
        String patchedIor = server.object_to_string(Orbs.rootPoa(server).servant_to_reference(s));
        String plainIor = server.object_to_string(Orbs.rootPoa(server).servant_to_reference(new HopServant()));
        patched = (ObjectImpl) client.string_to_object(patchedIor);
        unpatched = (ObjectImpl) client.string_to_object(plainIor);
    }

    @AfterAll
    static void stop() {
        Orbs.shutdown(client);
        Orbs.shutdown(server);
    }

    @Test
    void patchesGeneratedSkeletonsAndTheGlassFishTieIntoVerifiableClasses() throws Exception {
        for (String name : new String[] {POA, TIE, "org.dthreads.iiop.testidl.HopPOATie"}) {
            byte[] original = bytes(name);
            byte[] out = ServantInvokePatch.patch(original);
            if (name.endsWith("POATie")) {
                assertNull(out, "a POA tie inherits _invoke from its skeleton: nothing to patch");
                continue;
            }
            assertNotNull(out, name);
            assertEquals("", verify(out), name);
            // the JVM's verifier too: define and link the patched class
            Class<?> c = Class.forName(name, true, new PatchedLoader(Map.of(name, out)));
            assertEquals(name, c.getName());
        }
    }

    @Test
    void leavesOtherClassesAlone() throws Exception {
        assertNull(ServantInvokePatch.patch(bytes("java.lang.String")));
        assertNull(ServantInvokePatch.patch(bytes("org.omg.CORBA.portable.InvokeHandler")), "interfaces");
        ServantInvokePatch transformer = new ServantInvokePatch(name -> false);
        assertNull(transformer.transform(null, null, POA.replace('.', '/'), null, null, bytes(POA)), "out of scope");
        assertNotNull(transformer.transform(null, null, TIE.replace('.', '/'), null, null, bytes(TIE)),
                "the ORBs' own ties are patched whatever the scope");
        assertNull(new ServantInvokePatch(name -> true).transform(null, null, POA.replace('.', '/'), null, null,
                bytes(POA)), "dthreads' own packages never");
        assertNull(new ServantInvokePatch(name -> true).transform(null, null, "example/Foo", null, null,
                bytes("java.lang.String")), "classes without _invoke are not even parsed");
    }

    @Test
    void aPatchedSkeletonServesMonitorOperations() throws Exception {
        IiopMonitorTransport t = IiopMonitorTransport.instance();
        assertTrue(t.handles(patched));
        long token = t.call(patched, RemoteMonitorSite.ENTER, CLS, 0L, 30_000L, 0);
        assertTrue(token != 0L);
        assertEquals(1L, t.call(patched, RemoteMonitorSite.HOLDS, CLS, token, 0L, 0));
        assertEquals(1L, t.call(patched, RemoteMonitorSite.RENEW, CLS, token, 0L, 0));
        // the site's exceptions come back as the same types, with the site's message
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> t.call(patched, RemoteMonitorSite.WAIT, CLS, token, -1L, 0));
        assertNotNull(bad.getMessage());
        assertEquals(0L, t.call(patched, RemoteMonitorSite.WAIT, CLS, token, 1L, 0), "a timed wait returns");
        assertEquals(0L, t.call(patched, RemoteMonitorSite.EXIT, CLS, token, 0L, 0));
        assertThrows(IllegalMonitorStateException.class, () -> t.call(patched, RemoteMonitorSite.EXIT, CLS, token, 0L, 0));
        assertThrows(IllegalMonitorStateException.class,
                () -> t.call(patched, RemoteMonitorSite.NOTIFY, CLS, 0L, 0L, 0));
        assertThrows(IllegalArgumentException.class, () -> t.call(patched, 99, CLS, 0L, 0L, 0), "unknown op code");
    }

    @Test
    void aMalformedRequestGetsAnErrorReplyAndTheServerKeepsServing() throws Exception {
        fillBufferPool(server, STALE_HIGH, STALE_LOW);
        OutputStream out = patched._request(MonitorRequestHook.OPERATION, true);
        out.write_long(RemoteMonitorSite.HOLDS); // truncated: nothing after the op code
        org.omg.CORBA.portable.InputStream in = patched._invoke(out);
        try {
            // refused, never run: REFUSED "malformed ..." (ILLEGAL_ARGUMENT "... invalid class" if a site read zeros)
            int status = in.read_long();
            String message = in.read_string();
            assertTrue(status == MonitorWire.ILLEGAL_ARGUMENT || status == MonitorWire.REFUSED, status + " " + message);
            assertTrue(message.contains("malformed") || message.contains("class"), message);
        } finally {
            patched._releaseReply(in);
        }
        assertEquals(0L, IiopMonitorTransport.instance().call(patched, RemoteMonitorSite.HOLDS, CLS, 0L, 0L, 0));
    }

    @Test
    void aRequestWithoutTheCheckValueOrWithAWrongOneIsRefused() throws Exception {
        MonitorRequestBody holds = new MonitorRequestBody(RemoteMonitorSite.HOLDS, 0, CLS, 0L, 0L);
        for (boolean withCheck : new boolean[] {true, false}) { // corrupted; as a dthreads without checks wrote it
            fillBufferPool(server, STALE_HIGH, STALE_LOW);
            OutputStream out = patched._request(MonitorRequestHook.OPERATION, true);
            out.write_long(holds.op());
            out.write_long(holds.nanos());
            out.write_longlong(holds.threadClass());
            out.write_longlong(holds.token());
            out.write_longlong(holds.arg());
            if (withCheck) {
                out.write_ulong(holds.check() ^ 1);
            }
            org.omg.CORBA.portable.InputStream in = patched._invoke(out);
            try {
                assertEquals(MonitorWire.REFUSED, in.read_long());
                String message = in.read_string();
                assertTrue(message.contains("malformed") && message.contains(withCheck ? "does not match"
                        : "the GIOP message ends 4 bytes before"), message);
            } finally {
                patched._releaseReply(in);
            }
        }
    }

    /**
     * Stale bytes for JacORB's buffer pool: at every 8-aligned offset {@code STALE_HIGH}, then {@code STALE_LOW}.
     * Read after a HOLDS op code at the 8-aligned start of a GIOP 1.2 body they are nanos 7, the valid class
     * {@code 0x2c11ab22_00000007} as class, token and arg, and check value {@code STALE_HIGH}, which is the
     * CRC-32 of those values (solved for, over GF(2)): the tail of an earlier well-formed request of the same
     * shape, the one case a check value cannot catch.
     */
    static final int STALE_HIGH = 0x2c11ab22;
    static final int STALE_LOW = 7;

    /**
     * Puts buffers holding the stale pattern on top of the ORB's pool of 1 KB buffers: JacORB reads each incoming
     * message into the buffer last returned to that pool (a stack of at most 20 per size), never clearing it,
     * and only output streams return buffers. Without this, what lies past a short body depends on the traffic
     * before (zeros in a fresh buffer, text of an earlier reply, ...).
     */
    static void fillBufferPool(ORB orb, int high, int low) throws IOException {
        assertEquals(high, new MonitorRequestBody(RemoteMonitorSite.HOLDS, low, ((long) high << 32) | low,
                ((long) high << 32) | low, ((long) high << 32) | low).check(), "the pattern is a well-formed tail");
        java.util.List<OutputStream> streams = new java.util.ArrayList<>();
        for (int i = 0; i < 32; i++) {
            OutputStream s = orb.create_output_stream();
            for (int j = 0; j < 100; j++) {
                s.write_long(high);
                s.write_long(low);
            }
            streams.add(s);
        }
        for (OutputStream s : streams) {
            s.close();
        }
    }

    /** Site hellos from server to client (issue 15 §5): op 11 is answered with the site's identity. */
    @Test
    void aPatchedSkeletonAnswersSiteHellosAndAnUnpatchedOneIsNotAskedAgain() throws Exception {
        String answer = IiopMonitorTransport.instance().callText(patched, RemoteMonitorSite.SITE_HELLO, CLS,
                0x5d2c9e0411f3a7b6L, 0L, 0);
        assertEquals(SiteHelloAnswer.format(KernelLink.siteId(), KernelLink.siteIncarnation()), answer);
        SiteHelloRequests.send("case unpatched", unpatched);
        assertTrue(SiteHelloRequests.givenUp("case unpatched"), "BAD_OPERATION: not asked again for a day");
        SiteHelloRequests.send("case patched", patched);
        assertFalse(SiteHelloRequests.givenUp("case patched"), "answered: asked again with the next hello");
        String why = SiteHelloRequests.notDthreads(new org.omg.CORBA.BAD_OPERATION("_dthreads_monitor not found"));
        assertTrue(why.contains("does not run dthreads") && why.contains("outside the agent's scope")
                && why.contains("-Ddthreads.include=") && why.contains("_dthreads_monitor not found"), why);
    }

    @Test
    void aSkeletonThatWasNotPatchedMeansTheSiteDoesNotRunDthreads() {
        IiopMonitorTransport t = IiopMonitorTransport.instance();
        RemoteMonitorException e = assertThrows(RemoteMonitorException.class,
                () -> t.call(unpatched, RemoteMonitorSite.ENTER, CLS, 0L, 30_000L, 0));
        assertTrue(e.getMessage().contains("does not run dthreads"), e.getMessage());
        assertTrue(e.getMessage().contains("IDL:org/dthreads/iiop/testidl/Hop:1.0 at 127.0.0.1:"), e.getMessage());
        assertTrue(e.getCause() instanceof org.omg.CORBA.BAD_OPERATION, String.valueOf(e.getCause()));
    }

    @Test
    void anUnreachableSiteIsARemoteMonitorExceptionWithTheCause() throws Exception {
        ORB other = Orbs.init(Orbs.Kind.JACORB, false);
        String ior = other.object_to_string(Orbs.rootPoa(other).servant_to_reference(new HopServant()));
        Orbs.shutdown(other);
        ObjectImpl dead = (ObjectImpl) client.string_to_object(ior);
        RemoteMonitorException e = assertThrows(RemoteMonitorException.class,
                () -> IiopMonitorTransport.instance().call(dead, RemoteMonitorSite.ENTER, CLS, 0L, 30_000L, 0));
        assertTrue(e.getCause() instanceof org.omg.CORBA.SystemException, String.valueOf(e.getCause()));
    }

    @Test
    void describesAReferenceByTypeAndEndpoint() {
        String d = IiopMonitorTransport.instance().describe(patched);
        assertTrue(d.matches("IDL:org/dthreads/iiop/testidl/Hop:1\\.0 at 127\\.0\\.0\\.1:\\d+ \\(IIOP\\)"), d);
    }
}
