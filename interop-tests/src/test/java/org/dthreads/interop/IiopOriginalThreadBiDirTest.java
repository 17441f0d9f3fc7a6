package org.dthreads.interop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.callbacks.iiop.CorbaRelaySite;
import example.callbacks.iiop.SlotTracingInitializer;
import java.time.Duration;
import java.util.List;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code -Ddthreads.callbacks=original} on JacORB ORBs that use JacORB's own BiDir GIOP (issue 18), as JacORB's
 * callback demo {@code demo/bidir} does: it registers {@code org.jacorb.orb.giop.BiDirConnectionInitializer}, whose
 * client and server request interceptors make {@code JacorbCallbacks} keep every call and callback in take-over mode,
 * silently (found running that demo under the agent: its callback ran on an ORB thread, without the caller's
 * {@code ThreadLocal}). The same route without the initializer runs the callback on the original thread
 * ({@code IiopOriginalThreadCallbacksTest}). JacORB's BiDir interceptors keep no per-thread state and are let
 * through ({@code JacorbInterceptorRule}); a foreign interceptor using PICurrent still keeps the ORB in take-over
 * mode, with one WARNING naming it (the control).
 *
 * <p>Trail notation as in {@code IiopOriginalThreadCallbacksTest} ({@code example.callbacks.iiop.RelayVisits}).
 */
@ExtendWith(SitesExtension.class)
class IiopOriginalThreadBiDirTest {

    private static final String BIDIR_INITIALIZER = "org.omg.PortableInterceptor.ORBInitializerClass.bidir_init";
    private static final String TRACING_INITIALIZER = "org.omg.PortableInterceptor.ORBInitializerClass.tracing_init";
    private static final String OFF_LINE = "original-thread callbacks are off for this ORB";

    @BeforeAll
    static void agentIsBuilt() {
        JrmpZigzagTest.agentIsBuilt();
    }

    @Test
    void jacorbWithBiDirGiopRunsTheCallbackOnTheOriginalThread(SiteCluster cluster) {
        SiteSpec[] specs = new SiteSpec[2];
        String[] names = {"A", "B"};
        for (int i = 0; i < 2; i++) {
            specs[i] = SiteSpec.app(names[i], CorbaRelaySite.class).javaAgent(JrmpZigzagTest.AGENT).args("dthreads")
                    .systemProperty("dthreads.callbacks", "original")
                    .systemProperty(BIDIR_INITIALIZER, "org.jacorb.orb.giop.BiDirConnectionInitializer");
        }
        List<Site> sites = cluster.start(specs);
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(30),
                () -> sites.get(0).run("route", "A,B,A", "none"));
        assertEquals("A[first,fresh] > B[first,fresh] > A[same,seen]", trail);
        assertFalse(sites.get(0).stderrTail().contains(OFF_LINE), sites.get(0).stderrTail());
    }

    /**
     * Control: beside BiDir, a foreign server interceptor that fills a PICurrent slot (as tracing libraries do)
     * keeps the ORB in take-over mode, and the site says so once, naming the interceptor.
     */
    @Test
    void aForeignInterceptorUsingPicurrentKeepsTakeOverModeAndIsLogged(SiteCluster cluster) {
        SiteSpec[] specs = new SiteSpec[2];
        String[] names = {"A", "B"};
        for (int i = 0; i < 2; i++) {
            specs[i] = SiteSpec.app(names[i], CorbaRelaySite.class).javaAgent(JrmpZigzagTest.AGENT).args("dthreads")
                    .systemProperty("dthreads.callbacks", "original")
                    .systemProperty(BIDIR_INITIALIZER, "org.jacorb.orb.giop.BiDirConnectionInitializer")
                    .systemProperty(TRACING_INITIALIZER, SlotTracingInitializer.class.getName());
        }
        List<Site> sites = cluster.start(specs);
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(30),
                () -> sites.get(0).run("route", "A,B,A", "none"));
        assertEquals("A[first,fresh] > B[first,fresh] > A[other,fresh]", trail);
        await().atMost(Duration.ofSeconds(10)).until(() -> sites.get(0).stderrTail().contains(OFF_LINE));
        String log = sites.get(0).stderrTail();
        assertTrue(log.contains(SlotTracingInitializer.Tracer.class.getName()), log);
        assertEquals(log.indexOf(OFF_LINE), log.lastIndexOf(OFF_LINE), "once per ORB: " + log);
    }
}
