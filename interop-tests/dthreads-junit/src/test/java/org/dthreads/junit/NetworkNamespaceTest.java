package org.dthreads.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.rmi.registry.LocateRegistry;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.dthreads.junit.fixtures.ZigzagSiteA;
import org.dthreads.junit.fixtures.ZigzagSiteB;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Sites in separate network namespaces: distinct addresses on real (veth) interfaces. Skipped with
 * the reason where the machine does not allow namespaces, unless -Ddthreads.requireNetns=true.
 */
@ExtendWith(SitesExtension.class)
class NetworkNamespaceTest {

    @BeforeEach
    void requireNamespaces() {
        NetworkNamespaces.assumeAvailable();
    }

    private static List<Site> startInNamespaces(SiteCluster cluster, String mode) {
        NetworkNamespaces net = cluster.closeWith(NetworkNamespaces.create());
        NetworkNamespaces.Namespace nsA = net.add("A");
        NetworkNamespaces.Namespace nsB = net.add("B");
        return cluster.start(SiteSpec.app("A", ZigzagSiteA.class).args(mode).networkNamespace(nsA),
                SiteSpec.app("B", ZigzagSiteB.class).networkNamespace(nsB));
    }

    @Test
    void zigzagAcrossNamespacesCompletesAndUsesDistinctAddresses(SiteCluster cluster) throws Exception {
        List<Site> s = startInNamespaces(cluster, "separate");
        Site a = s.get(0);
        Site b = s.get(1);
        String hostA = a.endpoint("rmi.host");
        String hostB = b.endpoint("rmi.host");
        assertTrue(hostA.startsWith("10.231.") && hostB.startsWith("10.231."), hostA + " " + hostB);
        assertNotEquals(hostA, hostB);
        assertEquals(a.spec().networkNamespace().address(), hostA);

        String result = cluster.assertCompletesWithin(Duration.ofSeconds(15), () -> a.run("zigzag"));
        assertTrue(result.startsWith("foo(bar(baz[B,"), result);

        // the test JVM reaches a site through the segment's host link too
        String[] bound = LocateRegistry.getRegistry(hostA, Integer.parseInt(a.endpoint("rmi.registry.port"))).list();
        assertEquals(List.of("A"), Arrays.asList(bound));
    }

    @Test
    void muteSiteInANamespaceIsDumpedFromOutside(SiteCluster cluster) {
        NetworkNamespaces net = cluster.closeWith(NetworkNamespaces.create());
        Site s = cluster.start(SiteSpec.app("mute", org.dthreads.junit.fixtures.HarnessApps.Idle.class)
                .controlChannel(false).networkNamespace(net.add("M")));
        String dump = s.threadDump();
        assertTrue(dump.contains("(taken from outside with ") && dump.contains("SiteRuntimeImpl"), dump);
    }

    @Test
    void deadlockAcrossNamespacesIsDetectedAndNamespacesAreRemoved(SiteCluster cluster) {
        List<Site> s = startInNamespaces(cluster, "shared");
        List<String> names = s.stream().map(x -> x.spec().networkNamespace().name()).toList();
        assertTrue(NetworkNamespaces.existingNamespaces().containsAll(names));

        DeadlockEvidence evidence = cluster.assertDeadlocksWithin(Duration.ofSeconds(3), () -> s.get(0).run("zigzag"),
                "A's baz called back", e -> e.report("A").threadDump().contains("ZigzagSiteA$Impl.baz"));
        assertTrue(evidence.report("A").threadDump().contains("ZigzagSiteA$Impl.baz"), evidence::format);

        cluster.close();
        for (String n : names) {
            assertFalse(NetworkNamespaces.existingNamespaces().contains(n), n + " deleted");
        }
    }
}
