package org.dthreads.benchmarks.realworld;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Each real workload at a tiny size, so the benchmarks cannot rot between the runs made on demand:
 * every workload computes the same digest twice, the GC log parser reads a real pause line, and (when
 * the agent jar is built) the paired driver runs one plain and one agent JVM and they agree.
 */
class RealWorkloadSmokeTest {

    @Test
    @Timeout(60)
    void everyWorkloadIsDeterministicAtATinySize() throws Exception {
        for (RealWorkload w : RealWorkload.values()) {
            int size = switch (w) {
                case DERBY -> 20;
                case H2 -> 40;
                case MEMORY -> 20_000;
                default -> 1;
            };
            long first = w.round(size);
            assertEquals(first, w.round(size), w + " computes a different digest on its second round");
        }
    }

    @Test
    void startupLoadsThousandsOfClasses() throws Exception {
        assertTrue(RealWorkload.STARTUP_H2.round(1) > 900, "H2 classes loaded");
        assertTrue(RealWorkload.STARTUP_DERBY.round(1) > 1500, "Derby classes loaded");
    }

    @Test
    void gcLogParserSumsStopTheWorldPauses() {
        double[] totals = PairedJvms.gcPauses(List.of(
                "[0.512s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 25M->3M(256M) 2.914ms",
                "[0.700s][info][gc] GC(1) Concurrent Mark Cycle 12.000ms",
                "[0.900s][info][gc] GC(2) Pause Full (System.gc()) 10M->2M(64M) 11.086ms",
                "[15.205s][info][gc] GC(7) Pause Young (Concurrent Start) (Metadata GC Threshold) 86M->30M(468M) 25.259ms",
                "[15.309s][info][gc] GC(8) Pause Remark 35M->35M(160M) 21.495ms"));
        assertEquals(60.754, totals[0], 1e-9);
        assertEquals(4, (int) totals[1]);
        assertEquals(1, (int) totals[2], "pauses that started a cycle for the metaspace threshold");
    }

    @Test
    @Timeout(60)
    void pairedDriverRunsOnePlainAndOneAgentJvm() throws Exception {
        Path agent = Path.of("../dthreads-agent/target/dthreads-agent.jar");
        Assumptions.assumeTrue(Files.isRegularFile(agent), "agent jar not built");
        PairedJvms.Run plain = PairedJvms.runJvm(RealWorkload.XZ, null, List.of(), 1, 0, 1);
        PairedJvms.Run withAgent = PairedJvms.runJvm(RealWorkload.XZ, agent, List.of(), 1, 0, 1);
        assertTrue(plain.ok(), plain.failure());
        assertTrue(withAgent.ok(), withAgent.failure());
        assertEquals(plain.digest(), withAgent.digest());
        assertTrue(plain.allocMb() > 0 && withAgent.allocMb() > 0, plain + " " + withAgent);
        assertTrue(plain.metaspaceMb() > 0 && withAgent.metaspaceMb() > plain.metaspaceMb(), plain + " " + withAgent);
        assertTrue(PairedJvms.report(List.of(plain), List.of(withAgent)));
    }
}
