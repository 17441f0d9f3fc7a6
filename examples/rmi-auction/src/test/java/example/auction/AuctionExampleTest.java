package example.auction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.dthreads.junit.DeadlockEvidence;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The example both ways, server and client in separate JVMs, as README.md runs it. */
@ExtendWith(SitesExtension.class)
class AuctionExampleTest {

    private static final Path AGENT = Path.of(System.getProperty("dthreads.agent"));

    @Test
    void withDthreadsTheAuctionRuns(SiteCluster cluster) {
        assertTrue(Files.isRegularFile(AGENT), "build dthreads-agent first: " + AGENT);
        List<Site> sites = cluster.start(SiteSpec.app("server", AuctionSites.Server.class).javaAgent(AGENT),
                SiteSpec.app("client", AuctionSites.Client.class).javaAgent(AGENT));
        String heard = cluster.assertCompletesWithin(Duration.ofSeconds(30), () -> sites.get(1).run("bid"));
        assertEquals(String.join("\n",
                "bob hears alice bid 100; highest now: alice 100",
                "alice hears bob bid 120; highest now: bob 120",
                "bob hears alice bid 150; highest now: alice 150",
                "sold to alice 150"), heard);
    }

    @Test
    void withoutDthreadsTheFirstCallbackDeadlocks(SiteCluster cluster) {
        List<Site> sites = cluster.start(SiteSpec.app("server", AuctionSites.Server.class),
                SiteSpec.app("client", AuctionSites.Client.class));
        // on a starved machine the server's threads may reach those frames after the bound: the dumps are taken
        // again until they show them (bounded by the cluster's evidence timeout)
        DeadlockEvidence evidence = cluster.assertDeadlocksWithin(Duration.ofSeconds(3), () -> sites.get(1).run("bid"),
                "the server blocked in AuctionServer.highestBid inside AuctionServer.bid",
                e -> showsServerBlocked(e.report("server").threadDump()));
        System.out.println(evidence.format()); // every site's thread dump, for the log
        String server = evidence.report("server").threadDump();
        assertTrue(showsServerBlocked(server), server);
    }

    private static boolean showsServerBlocked(String serverDump) {
        return serverDump.contains("AuctionServer.highestBid") && serverDump.contains("AuctionServer.bid");
    }
}
