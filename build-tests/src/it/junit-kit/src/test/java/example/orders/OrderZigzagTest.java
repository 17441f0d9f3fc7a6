package example.orders;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

/** order (A, synchronized) -> charge (B) -> stock (A, synchronized): the zigzag, as a regression test. */
@ExtendWith(SitesExtension.class)
class OrderZigzagTest {

    private static final Path AGENT = Path.of(System.getProperty("dthreads.agent"));

    @Test
    void withDthreadsTheOrderCompletes(SiteCluster cluster) {
        List<Site> sites = cluster.start(SiteSpec.app("A", InventorySite.class).javaAgent(AGENT),
                SiteSpec.app("B", BillingSite.class).javaAgent(AGENT));
        String invoice = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> sites.get(0).run("order"));
        assertEquals("invoice 1 for book, 2 left", invoice);
    }

    @Test
    void withoutDthreadsTheOrderDeadlocks(SiteCluster cluster) { // the control: the test above can fail
        List<Site> sites = cluster.start(SiteSpec.app("A", InventorySite.class), SiteSpec.app("B", BillingSite.class));
        DeadlockEvidence evidence = cluster.assertDeadlocksWithin(Duration.ofSeconds(3), () -> sites.get(0).run("order"));
        assertTrue(evidence.report("A").threadDump().contains("InventorySite$Impl.stock"), evidence::format);
    }

    @Test
    void theTestJvmRunsTheAgentFromArgLine() {
        assertTrue(java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .anyMatch(a -> a.equals("-javaagent:" + AGENT)), "the test JVM runs with -javaagent:" + AGENT);
    }
}
