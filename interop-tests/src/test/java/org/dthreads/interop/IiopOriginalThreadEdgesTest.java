package org.dthreads.interop;

import static org.awaitility.Awaitility.await;
import static org.dthreads.interop.SceneSteps.BOUND;
import static org.dthreads.interop.SceneSteps.awaitUntil;
import static org.dthreads.interop.SceneSteps.frames;
import static org.dthreads.interop.SceneSteps.outcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import example.callbacks.edges.EdgeScenes;
import example.callbacks.edges.GlassFishScenesSite;
import example.callbacks.edges.JacorbScenesSite;
import java.time.Duration;
import java.util.List;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The edges of {@code -Ddthreads.callbacks=original} over IIOP (issue 18), on JacORB (CORBA, DII/DSI) and on the
 * GlassFish ORB (RMI-IIOP), two separate JVMs ({@link EdgeScenes}): site A's thread {@code T-<scene>} calls B, and
 * B calls A back under T's class, so the callback runs on T. The test forces each ordering with latches it
 * releases itself, and checks where the calls are with the sites' thread dumps: on both ORBs T sends and waits
 * itself, in the ORB's patched reply wait (JacORB's {@code ReplyPlaceholder}, GlassFish's
 * {@code ResponseWaitingRoomImpl}; no helper thread), and runs the callbacks from there (its {@link Orb#pending}
 * frame in A's dump until the call returns); a handed callback's ORB thread waits for T to run it ({@link #HANDED}).
 *
 * <ul>
 *   <li>T's own reply arriving while T runs a callback: T finishes the callback, then returns its reply.</li>
 *   <li>Interrupts: of T waiting for its reply (the wait goes on, the interrupt is T's status when its call
 *       returns: one interrupt, delivered once), of T running a callback that waits (the wait ends with
 *       {@code InterruptedException}), and of the caller across sites (B's wait that T's call caused ends), as
 *       {@link CrossSiteInterruptTest} and {@link InterruptStatusAcrossSitesTest} define them over JRMP.</li>
 *   <li>Several callbacks of T's class at once: they queue and run on T one at a time, in arrival order.</li>
 *   <li>A callback that waits on an emulated monitor, notified by a local thread or by another thread's callback,
 *       completes on T.</li>
 * </ul>
 * Every completion is bounded; a failure carries every site's thread dump and monitor dump (the site kit).
 */
@ExtendWith(SitesExtension.class)
class IiopOriginalThreadEdgesTest {

    /** A frame of an ORB thread that handed a callback to its original thread and waits for the outcome. */
    private static final String HANDED = "CallbackInvocation.awaitRunner(";

    enum Orb {
        /** T's reply wait: JacORB's, patched (original mode), on T itself. */
        JACORB(JacorbScenesSite.Edges.class, "JacorbReplyWait.getInputStream("),
        /** T's reply wait: the GlassFish ORB's, patched (original mode), on T itself (no helper thread). */
        GLASSFISH(GlassFishScenesSite.Edges.class, "GlassFishReplyWait.waitForResponse(");

        final Class<? extends SiteApp> site;
        /** A frame in A's thread dump while T's call waits for its reply (original mode). */
        final String pending;

        Orb(Class<? extends SiteApp> site, String pending) {
            this.site = site;
            this.pending = pending;
        }
    }

    @BeforeAll
    static void agentIsBuilt() {
        JrmpZigzagTest.agentIsBuilt();
    }

    /** Sites A and B in original mode; {@code queueMillis} for A's callbacks (0: the default). */
    private static List<Site> start(SiteCluster cluster, Orb orb, long queueMillis) {
        SiteSpec a = spec("A", orb);
        if (queueMillis > 0) {
            a = a.systemProperty("dthreads.callbacks.queueMillis", Long.toString(queueMillis));
        }
        return cluster.start(a, spec("B", orb));
    }

    private static SiteSpec spec(String name, Orb orb) {
        return SiteSpec.app(name, orb.site).javaAgent(JrmpZigzagTest.AGENT).systemProperty("dthreads.callbacks", "original");
    }

    @ParameterizedTest
    @EnumSource(Orb.class)
    void theOwnReplyArrivingDuringACallbackIsReturnedAfterTheCallbackEnds(Orb orb, SiteCluster cluster) {
        List<Site> sites = start(cluster, orb, 0);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "B", "replyDuringCallback");
        awaitEvent(a, "callback 1 starts on T-replyDuringCallback");
        assertEquals(1, frames(a, orb.pending), "T's own call is pending while it runs the callback");
        b.run("release", "reply");
        // T waits for its reply itself (both ORBs): the reply's arrival shows in no thread; B has sent it
        awaitFrames(b, "EdgeScenes.serve(", 0);
        a.run("mark", "own reply arrived"); // T's reply has completed; T still runs the callback
        assertEquals("running", a.run("peek", "T-replyDuringCallback"));
        a.run("release", "callback");
        assertEquals("B replied; T-replyDuringCallback's status false", outcome(cluster, a, "replyDuringCallback"));
        assertEquals("callback 1 starts on T-replyDuringCallback ; own reply arrived ; released callback ; callback 1 ends"
                + " ; T-replyDuringCallback's call returned", a.run("events"));
    }

    @ParameterizedTest
    @EnumSource(Orb.class)
    void anInterruptOfTheCallerEndsTheWaitItsCallReachedAtTheOtherSite(Orb orb, SiteCluster cluster) {
        List<Site> sites = start(cluster, orb, 0);
        Site a = sites.get(0);
        a.run("start", "B", "waitHere");
        awaitWaiterAt(sites.get(1));
        a.run("interrupt", "T-waitHere", "routed");
        assertEquals("B's wait interrupted, holds lock true, status false; T-waitHere's status false",
                outcome(cluster, a, "waitHere"));
    }

    @ParameterizedTest
    @CsvSource({"JACORB, routed", "JACORB, raw", "GLASSFISH, routed", "GLASSFISH, raw"})
    void anInterruptOfTheOriginalThreadWaitingForItsReplyDoesNotEndTheWaitAndIsItsStatusAfterwards(Orb orb, String how,
            SiteCluster cluster) {
        List<Site> sites = interruptWhileWaitingForTheReply(cluster, orb, how);
        sites.get(1).run("release", "hold");
        assertEquals("B released; T-hold's status true", outcome(cluster, sites.get(0), "hold"));
    }

    @ParameterizedTest
    @EnumSource(Orb.class)
    void aRoutedInterruptOfTheOriginalThreadWaitingForItsReplyReadsAsItsStatusAtOnce(Orb orb, SiteCluster cluster) {
        // as InterruptStatusAcrossSitesTest over JRMP: the interrupt is kept for T's class, and t.isInterrupted() says so
        List<Site> sites = interruptWhileWaitingForTheReply(cluster, orb, "routed");
        assertEquals("true", sites.get(0).run("status", "T-hold"), "t.isInterrupted() while T waits for its reply");
    }

    /** A JDK interrupt (not routed: {@code FutureTask.cancel(true)}) reads as T's status while T waits, too. */
    @ParameterizedTest
    @EnumSource(Orb.class)
    void aJdkInterruptOfTheOriginalThreadWaitingForItsReplyReadsAsItsStatusWhileItWaits(Orb orb, SiteCluster cluster) {
        List<Site> sites = interruptWhileWaitingForTheReply(cluster, orb, "raw");
        assertEquals("true", sites.get(0).run("status", "T-hold"), "t.isInterrupted() while T waits for its reply");
    }

    /**
     * T calls B, which holds the call (latch {@code hold}); T is interrupted ({@code how}); T's wait goes on: its
     * call is still pending ({@link Orb#pending}) and T has not returned.
     */
    private static List<Site> interruptWhileWaitingForTheReply(SiteCluster cluster, Orb orb, String how) {
        List<Site> sites = start(cluster, orb, 0);
        Site a = sites.get(0);
        a.run("start", "B", "hold");
        awaitEvent(sites.get(1), "B holds");
        a.run("interrupt", "T-hold", how);
        await().during(Duration.ofMillis(500)).atMost(BOUND).pollInterval(Duration.ofMillis(50))
                .until(() -> a.run("peek", "T-hold").equals("running") && frames(a, orb.pending) == 1);
        return sites;
    }

    @ParameterizedTest
    @CsvSource({"JACORB, routed", "JACORB, raw", "GLASSFISH, routed", "GLASSFISH, raw"})
    void anInterruptOfTheOriginalThreadRunningACallbackEndsTheCallbacksWait(Orb orb, String how, SiteCluster cluster) {
        List<Site> sites = start(cluster, orb, 0);
        Site a = sites.get(0);
        a.run("start", "B", "callbackWaits");
        awaitEvent(a, "callback waits on T-callbackWaits");
        awaitWaiterAt(a);
        a.run("interrupt", "T-callbackWaits", how);
        assertEquals("B got: callback's wait on T-callbackWaits interrupted, holds true, status false;"
                + " T-callbackWaits's status false", outcome(cluster, a, "callbackWaits"));
    }

    @ParameterizedTest
    @EnumSource(Orb.class)
    void severalCallbacksOfOneClassQueueAndRunOnTheOriginalThreadOneAtATimeInArrivalOrder(Orb orb, SiteCluster cluster) {
        // A's queue bound well above the test's own steps, so a slow machine never turns a queued callback into a
        // take-over one (that path is the orphan rule's, tested in IiopOriginalThreadCallbacksTest)
        List<Site> sites = start(cluster, orb, 120_000);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "B", "burst");
        awaitEvent(a, "callback 1 starts on T-burst (1 running)");
        assertEquals(1, frames(a, HANDED), "callback 1's ORB thread waits for T");
        b.run("send", "2");
        awaitFrames(a, HANDED, 2);
        b.run("send", "3");
        awaitFrames(a, HANDED, 3);
        assertFalse(a.run("events").contains("callback 2 starts"), "callback 2 queues behind callback 1");
        a.run("release", "gate");
        assertEquals("B got: callback 1 done, callback 2 done, callback 3 done; T-burst's status false",
                outcome(cluster, a, "burst"));
        assertEquals("callback 1 starts on T-burst (1 running) ; released gate ; callback 1 ends"
                + " ; callback 2 starts on T-burst (1 running) ; callback 2 ends"
                + " ; callback 3 starts on T-burst (1 running) ; callback 3 ends ; T-burst's call returned", a.run("events"));
    }

    @ParameterizedTest
    @EnumSource(Orb.class)
    void aCallbackThatWaitsIsNotifiedByALocalThreadAndCompletesOnTheOriginalThread(Orb orb, SiteCluster cluster) {
        List<Site> sites = start(cluster, orb, 0);
        Site a = sites.get(0);
        a.run("start", "B", "callbackWaits");
        awaitEvent(a, "callback waits on T-callbackWaits");
        awaitWaiterAt(a);
        a.run("notify");
        assertEquals("B got: callback on T-callbackWaits notified, holds true; T-callbackWaits's status false",
                outcome(cluster, a, "callbackWaits"));
        assertEquals("callback waits on T-callbackWaits ; a local thread notifies ; T-callbackWaits's call returned",
                a.run("events"));
    }

    @ParameterizedTest
    @EnumSource(Orb.class)
    void aCallbackThatWaitsIsNotifiedByAnotherThreadsCallbackAndBothCompleteOnTheirOriginalThreads(Orb orb,
            SiteCluster cluster) {
        List<Site> sites = start(cluster, orb, 0);
        Site a = sites.get(0);
        a.run("start", "B", "callbackWaits");
        awaitEvent(a, "callback waits on T-callbackWaits");
        awaitWaiterAt(a);
        a.run("start", "B", "callbackNotifies");
        assertEquals("B got: callback notified on T-callbackNotifies; T-callbackNotifies's status false",
                outcome(cluster, a, "callbackNotifies"));
        assertEquals("B got: callback on T-callbackWaits notified, holds true; T-callbackWaits's status false",
                outcome(cluster, a, "callbackWaits"));
    }

    private static void awaitEvent(Site site, String event) {
        awaitUntil(() -> site.run("events").contains(event));
    }

    /** Some class waits in {@code wait()} on an emulated monitor of {@code site}. */
    private static void awaitWaiterAt(Site site) {
        awaitUntil(() -> site.monitorDump().matches("(?s).*waiting: \\[[^\\]]+\\].*"));
    }

    /** Exactly {@code count} threads of {@code site} are in {@code frame}. */
    private static void awaitFrames(Site site, String frame, int count) {
        awaitUntil(() -> frames(site, frame) == count);
    }
}
