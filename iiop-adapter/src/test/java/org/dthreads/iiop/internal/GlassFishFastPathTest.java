package org.dthreads.iiop.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.corba.ee.impl.protocol.ClientRequestDispatcherImpl;
import com.sun.corba.ee.impl.protocol.ServerRequestDispatcherImpl;
import com.sun.corba.ee.spi.protocol.RequestDispatcherRegistry;
import java.util.List;
import java.util.Properties;
import org.dthreads.ClassScope;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.iiop.rmi.HopRemote;
import org.dthreads.iiop.rmi.HopRemoteImpl;
import org.dthreads.iiop.rmi.RmiIiop;
import org.dthreads.iiop.support.LogCapture;
import org.dthreads.iiop.support.Orbs;
import org.dthreads.iiop.support.RecordingInitializer;
import org.dthreads.iiop.support.RmiDelegates;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;

/**
 * Which path an ORB gets: the GlassFish ORB fast path (the ORB's own request dispatchers carry the
 * identity, no dthreads interceptor), the portable interceptors when forced or when the dispatchers are
 * someone else's. Each case makes real calls between two ORBs in this JVM.
 */
class GlassFishFastPathTest {

    @BeforeAll
    static void delegates() {
        RmiDelegates.install();
    }

    private static RequestDispatcherRegistry registry(ORB orb) {
        return ((com.sun.corba.ee.spi.orb.ORB) orb).getRequestDispatcherRegistry();
    }

    private static boolean portableForced() {
        return "portable".equals(System.getProperty(FastPaths.PATH_PROPERTY));
    }

    /** Calls B from A under a bound class; returns what B's servant and B's own interceptor saw. */
    private static void callCarriesTheClass(ORB a, ORB b, long x) throws Exception {
        HopRemoteImpl impl = new HopRemoteImpl();
        try {
            HopRemote hop = RmiIiop.hop(a, RmiIiop.export(b, impl));
            RecordingInitializer.RECORDED.clear();
            try (ClassScope s = DThreads.bind(x)) {
                assertEquals(x, hop.seen());
            }
            assertTrue(RecordingInitializer.RECORDED.contains("seen " + Long.toHexString(x)),
                    "the application's own interceptor reads the same context: " + RecordingInitializer.RECORDED);
        } finally {
            RmiIiop.unexport(impl);
        }
    }

    private static Properties withRecorder() {
        Properties p = Orbs.props(Orbs.Kind.GLASSFISH, true);
        p.setProperty(RecordingInitializer.PROPERTY, "");
        return p;
    }

    @Test
    void fastPathReplacesTheDispatchersAndKeepsTheWireFormat() throws Exception {
        ORB a = Orbs.init(Orbs.Kind.GLASSFISH, true);
        ORB b = Orbs.init(withRecorder());
        try {
            Orbs.rootPoa(a);
            Orbs.rootPoa(b);
            if (portableForced()) {
                assertSame(ClientRequestDispatcherImpl.class, registry(a).getClientRequestDispatcher(2).getClass());
                assertSame(ServerRequestDispatcherImpl.class, registry(b).getServerRequestDispatcher(2).getClass());
            } else {
                for (int id : new int[] {2, 32, 36, 40, 44}) {
                    assertInstanceOf(GlassFishClientDispatcher.class, registry(a).getClientRequestDispatcher(id));
                    assertInstanceOf(GlassFishServerDispatcher.class, registry(b).getServerRequestDispatcher(id));
                }
            }
            callCarriesTheClass(a, b, ThreadClass.of(0x0fa5_7a7f, 1));
        } finally {
            Orbs.shutdown(a);
            Orbs.shutdown(b);
        }
    }

    @Test
    void forcedPortablePathKeepsTheOrbsDispatchers() throws Exception {
        String before = System.getProperty(FastPaths.PATH_PROPERTY);
        System.setProperty(FastPaths.PATH_PROPERTY, "portable");
        ORB a;
        ORB b;
        try {
            a = Orbs.init(Orbs.Kind.GLASSFISH, true);
            b = Orbs.init(withRecorder());
        } finally {
            if (before == null) {
                System.clearProperty(FastPaths.PATH_PROPERTY);
            } else {
                System.setProperty(FastPaths.PATH_PROPERTY, before);
            }
        }
        try {
            Orbs.rootPoa(a);
            Orbs.rootPoa(b);
            assertSame(ClientRequestDispatcherImpl.class, registry(a).getClientRequestDispatcher(2).getClass());
            assertSame(ServerRequestDispatcherImpl.class, registry(b).getServerRequestDispatcher(2).getClass());
            callCarriesTheClass(a, b, ThreadClass.of(0x0fa5_7a7f, 2));
        } finally {
            Orbs.shutdown(a);
            Orbs.shutdown(b);
        }
    }

    @Test
    void someoneElsesDispatcherMeansThePortablePathAndOneLogLine() throws Exception {
        LogCapture log = new LogCapture(FastPaths.class.getName());
        Properties pa = Orbs.props(Orbs.Kind.GLASSFISH, true);
        pa.setProperty(ForeignDispatcherConfigurator.PROPERTY, "");
        ORB a = Orbs.init(pa);
        ORB b = Orbs.init(withRecorder());
        try {
            Orbs.rootPoa(a);
            Orbs.rootPoa(b);
            assertSame(ForeignDispatcherConfigurator.Foreign.class, registry(a).getClientRequestDispatcher(2).getClass());
            assertSame(ServerRequestDispatcherImpl.class, registry(a).getServerRequestDispatcher(2).getClass(),
                    "nothing replaced on an ORB that falls back");
            callCarriesTheClass(a, b, ThreadClass.of(0x0fa5_7a7f, 3));
            List<String> lines = log.messages();
            if (!portableForced()) {
                assertEquals(1, lines.size(), lines.toString());
                assertTrue(lines.get(0).contains("fast path not installed")
                        && lines.get(0).contains(ForeignDispatcherConfigurator.Foreign.class.getName()), lines.get(0));
            }
        } finally {
            log.close();
            Orbs.shutdown(a);
            Orbs.shutdown(b);
        }
    }
}
