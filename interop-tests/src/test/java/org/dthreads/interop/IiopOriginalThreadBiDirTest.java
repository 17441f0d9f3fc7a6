package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import example.callbacks.iiop.CorbaRelaySite;
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
 * ({@code IiopOriginalThreadCallbacksTest}). Fails until JacORB's BiDir interceptors are let through (they keep no
 * per-thread state) or, at least, the mode says it is off for such an ORB.
 *
 * <p>Trail notation as in {@code IiopOriginalThreadCallbacksTest} ({@code example.callbacks.iiop.RelayVisits}).
 */
@ExtendWith(SitesExtension.class)
class IiopOriginalThreadBiDirTest {

    private static final String BIDIR_INITIALIZER = "org.omg.PortableInterceptor.ORBInitializerClass.bidir_init";

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
    }
}
