package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.zigzag.mixed.MixedHopSite;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.dthreads.junit.NetworkNamespaces;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The main scenarios with each site on its own host: a network namespace with its own address,
 * calls crossing real (veth) interfaces, and a distinct {@code -Ddthreads.site} per host. Skipped,
 * with the reason, where namespaces are not available; CI sets {@code dthreads.requireNetns} so
 * that there a skip is a failure.
 */
@ExtendWith(SitesExtension.class)
class NamespacedZigzagTest {

    private static final Pattern HOP = Pattern.compile("hop (\\d+): (\\S+), thread \"[^\"]*\", class ([0-9a-f]{8}):([0-9a-f]{8})");

    @BeforeEach
    void requireNamespaces() {
        NetworkNamespaces.assumeAvailable();
    }

    private static List<Site> startOnHosts(SiteCluster cluster, boolean dthreads, String... names) {
        NetworkNamespaces net = cluster.closeWith(NetworkNamespaces.create());
        List<SiteSpec> specs = new ArrayList<>();
        int siteId = 1;
        for (String name : names) {
            SiteSpec spec = SiteSpec.app(name, MixedHopSite.class).networkNamespace(net.add(name))
                    .systemProperty("dthreads.site", Integer.toString(siteId++));
            specs.add(dthreads ? spec.javaAgent(JrmpZigzagTest.AGENT).args("dthreads") : spec);
        }
        return cluster.start(specs.toArray(SiteSpec[]::new));
    }

    @Test
    void mixedZigzagAcrossThreeHostsKeepsTheFirstHostsClass(SiteCluster cluster) {
        List<Site> sites = startOnHosts(cluster, true, "A", "B", "C");
        Set<String> addresses = Set.of(sites.get(0).endpoint("rmi.host"), sites.get(1).endpoint("rmi.host"),
                sites.get(2).endpoint("rmi.host"));
        assertEquals(3, addresses.size(), "one address per host: " + addresses);
        assertTrue(addresses.stream().allMatch(a -> a.startsWith("10.231.")), addresses::toString);

        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(30),
                () -> sites.get(0).run("route", "A,rmi:B,corba:C,rmi:A,corba:B"));
        assertEquals(5, trail.split(" > ").length, trail);

        List<String> classes = new ArrayList<>();
        for (Site site : sites) {
            Matcher m = HOP.matcher(site.stdoutTail());
            while (m.find()) {
                classes.add(m.group(3) + ":" + m.group(4));
            }
        }
        assertEquals(5, classes.size(), classes::toString);
        assertEquals(1, Set.copyOf(classes).size(), "one class at every hop on every host: " + classes);
        assertTrue(classes.get(0).startsWith("00000001:"), "the class is host A's (site 1): " + classes);
    }

    @Test
    void jrmpZigzagAcrossTwoHostsCompletesWithDthreadsAndDeadlocksWithout(SiteCluster cluster) {
        List<Site> with = startOnHosts(cluster, true, "A", "B");
        assertNotEquals(with.get(0).endpoint("rmi.host"), with.get(1).endpoint("rmi.host"));
        cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> with.get(0).run("route", "A,rmi:B,rmi:A"));
    }

    @Test
    void controlAcrossHostsWithoutDthreadsDeadlocks(SiteCluster cluster) {
        List<Site> without = startOnHosts(cluster, false, "A", "B");
        cluster.assertDeadlocksWithin(Duration.ofSeconds(4), () -> without.get(0).run("route", "A,corba:B,rmi:A"));
    }
}
