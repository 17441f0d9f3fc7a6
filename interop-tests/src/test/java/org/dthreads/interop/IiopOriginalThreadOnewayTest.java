package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import example.callbacks.oneway.CorbaOnewaySite;
import java.time.Duration;
import java.util.List;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Oneways with a CORBA Messaging {@code SyncScope} whose servant calls the caller's site back, on JacORB, in both
 * callback modes (issue 18; {@link CorbaOnewaySite}): A's thread T holds a lock, sends a oneway to B, and B's servant
 * calls A back (a two-way) taking that lock.
 * <ul>
 *   <li>{@code SYNC_NONE}, {@code SYNC_WITH_TRANSPORT}, {@code SYNC_WITH_SERVER}: T does not wait for the servant
 *       (JacORB's server acknowledges a {@code WITH_SERVER} oneway before it dispatches it), so the servant is
 *       another logical thread: a fresh class. Its callback is never handed to T, in either mode: it runs on an ORB
 *       thread, without T's {@code ThreadLocal}, and waits for the lock until T releases it.</li>
 *   <li>{@code SYNC_WITH_TARGET}: T waits in JacORB's reply wait until the servant has returned (JacORB's
 *       {@code RequestProcessor} replies after {@code process()}), as for a two-way call without a result, so the
 *       oneway carries T's class: in original mode the callback runs on T (same {@code Thread}, its
 *       {@code ThreadLocal}, the lock re-entered, native or emulated); in take-over mode it takes over T's emulated
 *       monitors on an ORB thread, and a native monitor deadlocks (the control).</li>
 * </ul>
 * And a caller that waits in another call of its own when the callback of a oneway that did not wait for its target
 * comes does not run it. The GlassFish ORB has no {@code SyncScope} policy (its {@code create_policy} knows none), so JacORB only.
 */
@ExtendWith(SitesExtension.class)
class IiopOriginalThreadOnewayTest {

    private static final Duration BOUND = Duration.ofSeconds(60);
    /** The servant is another logical thread: its callback waits for T to release the lock. */
    private static final String ANOTHER_THREAD = "oneway returned ; callback entered on other thread"
            + " ; caller releases the lock ; callback took the lock after the caller released it, tl fresh";

    @BeforeAll
    static void agentIsBuilt() {
        JrmpZigzagTest.agentIsBuilt();
    }

    private static List<Site> start(SiteCluster cluster, String mode) {
        return start(cluster, mode, "fast");
    }

    /** {@code path}: {@code fast} (the agent's JacORB hooks) or {@code portable} (the Portable Interceptors). */
    private static List<Site> start(SiteCluster cluster, String mode, String path) {
        SiteSpec[] specs = new SiteSpec[2];
        String[] names = {"A", "B"};
        for (int i = 0; i < 2; i++) {
            SiteSpec spec = SiteSpec.app(names[i], CorbaOnewaySite.class).javaAgent(JrmpZigzagTest.AGENT)
                    .systemProperty("dthreads.callbacks", mode);
            specs[i] = path.equals("portable") ? spec.systemProperty("dthreads.iiop.path", "portable") : spec;
        }
        return cluster.start(specs);
    }

    private static String oneway(SiteCluster cluster, String mode, String scope, String lock) {
        List<Site> sites = start(cluster, mode);
        return cluster.assertCompletesWithin(BOUND, () -> sites.get(0).run(BOUND, "oneway", scope, lock));
    }

    @ParameterizedTest
    @CsvSource({"original, NONE", "original, TRANSPORT", "original, SERVER",
            "takeover, NONE", "takeover, TRANSPORT", "takeover, SERVER"})
    void aOnewaysCallbackIsAnotherThreadsWhenTheCallerDoesNotWaitForTheServant(String mode, String scope,
            SiteCluster cluster) {
        assertEquals(ANOTHER_THREAD, oneway(cluster, mode, scope, "emulated"));
    }

    /**
     * The caller, back from its oneway, waits in a two-way call of its own when the servant's callback comes: the
     * callback is another thread's and is not handed to it (it would run on the caller, with its
     * {@code ThreadLocal}, if the oneway carried the caller's class).
     */
    @ParameterizedTest
    @CsvSource({"original, NONE", "original, TRANSPORT", "original, SERVER", "takeover, SERVER"})
    void aOnewaysCallbackIsNotHandedToTheCallerWaitingInAnotherCall(String mode, String scope, SiteCluster cluster) {
        assertEquals("oneway returned ; callback entered on other thread ; callback ran, tl fresh"
                + " ; caller's call returned: callback answered", oneway(cluster, mode, scope, "none"));
    }

    @Test
    void aSyncWithTargetOnewaysCallbackRunsOnTheOriginalThreadBeforeTheOnewayReturns(SiteCluster cluster) {
        assertEquals("callback entered on same thread ; callback ran, tl seen ; oneway returned"
                + " ; caller's call returned: callback answered", oneway(cluster, "original", "TARGET", "none"));
    }

    @Test
    void aOnewaysCallbackWaitsForANativeMonitorTheCallerHoldsInOriginalMode(SiteCluster cluster) {
        assertEquals(ANOTHER_THREAD, oneway(cluster, "original", "SERVER", "native"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"emulated", "native"})
    void aSyncWithTargetOnewaysCallbackRunsOnTheOriginalThread(String lock, SiteCluster cluster) {
        assertEquals("callback entered on same thread ; callback took the lock while the caller holds it, tl seen"
                + " ; oneway returned", oneway(cluster, "original", "TARGET", lock));
    }

    @Test
    void controlInTakeOverModeASyncWithTargetOnewaysCallbackTakesOverTheCallersEmulatedMonitor(SiteCluster cluster) {
        assertEquals("callback entered on other thread ; callback took the lock while the caller holds it, tl fresh"
                + " ; oneway returned", oneway(cluster, "takeover", "TARGET", "emulated"));
    }

    /** The same rule on the Portable Interceptor path ({@code ClientIdentityInterceptor}): the caller is marked waiting. */
    @Test
    void onThePortableInterceptorPathASyncWithTargetOnewaysCallbackTakesOverTheCallersEmulatedMonitor(
            SiteCluster cluster) {
        List<Site> sites = start(cluster, "takeover", "portable");
        assertEquals("callback entered on other thread ; callback took the lock while the caller holds it, tl fresh"
                + " ; oneway returned", cluster.assertCompletesWithin(BOUND,
                        () -> sites.get(0).run(BOUND, "oneway", "TARGET", "emulated")));
    }

    @Test
    void controlInTakeOverModeASyncWithTargetOnewaysCallbackDeadlocksOnANativeMonitor(SiteCluster cluster) {
        List<Site> sites = start(cluster, "takeover");
        cluster.assertDeadlocksWithin(Duration.ofSeconds(4), () -> sites.get(0).run(BOUND, "oneway", "TARGET", "native"),
                "the callback BLOCKED on the Vector at A", e -> {
                    String dump = e.report("A").threadDump();
                    return dump.contains("CorbaOnewaySite$Servant.back") && dump.contains("BLOCKED on java.util.Vector");
                });
    }
}
