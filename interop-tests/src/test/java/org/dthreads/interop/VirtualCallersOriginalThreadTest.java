package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code -Ddthreads.callbacks=original} with virtual callers (issue 18), on JDK 25 sites over JRMP: the outgoing call
 * of a virtual thread runs on a virtual helper thread, so 1,000 virtual threads each in a call (1 s of work at the
 * callee, then a callback into the caller's own monitor) cost no platform thread each. With a platform helper per
 * call the caller's site had at least 1,000 platform threads at its peak (measured 1,520 to 1,676); with virtual
 * helpers what remains are RMI's connection threads, one per callback being received at once (96 to 236 measured).
 * Every callback still runs on its virtual caller, with its {@code ThreadLocal}. Without virtual helpers the test
 * fails (1,109 platform threads).
 */
@ExtendWith(SitesExtension.class)
class VirtualCallersOriginalThreadTest {

    private static final int CALLERS = 1_000;
    /** Platform helpers alone would be this many: one per caller in flight. */
    private static final int PLATFORM_THREAD_BOUND = CALLERS;

    @BeforeAll
    static void agentIsBuilt() {
        JrmpZigzagTest.agentIsBuilt();
    }

    @Test
    void aThousandVirtualCallersInCallsWithCallbacksNeedNoPlatformHelperEach(SiteCluster cluster) {
        List<Site> sites = VirtualThreadsTest.start(cluster, true);
        Site a = sites.get(0);
        // warm: the first use of a class by many virtual threads at once makes them wait for its initialization
        // on their carriers (VirtualThreadsTest.warmUp)
        String warm = cluster.assertCompletesWithin(Duration.ofSeconds(60), () -> a.run("crowd", "B", "100", "100", "100", "50"));
        assertTrue(warm.startsWith("done"), warm);
        // every caller on a lock of its own (LOCKS = CALLERS), so all 1,000 calls are in flight together
        String result = cluster.assertCompletesWithin(Duration.ofSeconds(120),
                () -> a.run("crowd", "B", String.valueOf(CALLERS), String.valueOf(CALLERS), "1000", "90"));
        System.out.println("VirtualCallersOriginalThreadTest: " + result);
        assertTrue(result.startsWith("done of " + CALLERS + " ") && result.endsWith("callbacks {virtual,seen,same=" + CALLERS + "}"),
                result);
        Matcher peak = Pattern.compile("peak platform threads (\\d+)").matcher(result);
        assertTrue(peak.find(), result);
        int platform = Integer.parseInt(peak.group(1));
        assertTrue(platform < PLATFORM_THREAD_BOUND, "peak platform threads " + platform + " >= " + PLATFORM_THREAD_BOUND
                + " for " + CALLERS + " virtual callers: a platform helper per call? " + result);
    }
}
