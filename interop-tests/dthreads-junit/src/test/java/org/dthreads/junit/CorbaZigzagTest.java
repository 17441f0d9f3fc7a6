package org.dthreads.junit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import org.dthreads.junit.fixtures.CorbaZigzag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The zigzag over CORBA/IIOP (JacORB): ORBs on port 0, IORs passed back as endpoints. */
@ExtendWith(SitesExtension.class)
class CorbaZigzagTest {

    @Test
    void corbaZigzagWithoutDthreadsDeadlocks(SiteCluster cluster) {
        List<Site> s = cluster.start(SiteSpec.app("A", CorbaZigzag.SiteA.class).args("shared"),
                SiteSpec.app("B", CorbaZigzag.SiteB.class));
        assertTrue(s.get(0).endpoint("ior.A").startsWith("IOR:"));

        DeadlockEvidence e = cluster.assertDeadlocksWithin(Duration.ofSeconds(3), () -> s.get(0).run("zigzag"),
                "A's foo holding the servant and its invoke BLOCKED", CorbaZigzagTest::callbackBlockedAtA);

        String dumpA = e.report("A").threadDump();
        assertTrue(dumpA.contains("CorbaZigzag$SiteA$Servant.invoke") && dumpA.contains("BLOCKED"), dumpA);
        assertTrue(dumpA.contains("CorbaZigzag$SiteA$Servant.foo"), dumpA);
    }

    private static boolean callbackBlockedAtA(DeadlockEvidence e) {
        String dumpA = e.report("A").threadDump();
        return dumpA.contains("CorbaZigzag$SiteA$Servant.invoke") && dumpA.contains("BLOCKED")
                && dumpA.contains("CorbaZigzag$SiteA$Servant.foo");
    }

    @Test
    void corbaZigzagWithoutSharedMonitorCompletes(SiteCluster cluster) {
        List<Site> s = cluster.start(SiteSpec.app("A", CorbaZigzag.SiteA.class).args("separate"),
                SiteSpec.app("B", CorbaZigzag.SiteB.class));
        String r = cluster.assertCompletesWithin(Duration.ofSeconds(10), () -> s.get(0).run("zigzag"));
        assertTrue(r.startsWith("foo(bar(baz[B,"), r);
    }
}
