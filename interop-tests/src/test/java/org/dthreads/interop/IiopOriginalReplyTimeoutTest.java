package org.dthreads.interop;

import static org.dthreads.interop.SceneSteps.awaitUntil;
import static org.dthreads.interop.SceneSteps.elapsed;
import static org.dthreads.interop.SceneSteps.millis;
import static org.dthreads.interop.SceneSteps.outcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.callbacks.edges.GlassFishScenesSite;
import example.callbacks.edges.JacorbScenesSite;
import example.callbacks.edges.TimeoutScenes;
import java.util.List;
import java.util.stream.Stream;
import org.dthreads.interop.SceneSteps.Mode;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An ORB's own reply timeout, set for every call by a JVM property and checked by the waiting thread itself, against
 * callbacks (issue 18), in {@code -Ddthreads.callbacks=original} and, as the control, in take-over mode, on JacORB
 * ({@code jacorb.connection.client.pending_reply_timeout}: no timer thread, the caller's {@code lock.wait} loop) and
 * on the GlassFish ORB ({@code com.sun.corba.ee.transport.ORBWaitForResponseTimeout}: the caller's
 * {@code awaitNanos} loop). Two JVMs ({@link TimeoutScenes}): A's thread {@code T-<scene>} calls B; B calls A back
 * under T's class (on T in original mode, on an ORB thread in take-over mode).
 *
 * <p>What holds in both modes: a call whose reply does not come ends with the ORB's timeout exception at its timeout,
 * however many callbacks T runs meanwhile (each re-entry of the ORB's wait must not start the timeout again); a
 * callback's wake-up does not end the wait; a reply that came in time while T ran a callback is returned; a call
 * that a callback makes has its own timeout, not what is left of the waiting call's. Where original mode differs,
 * as it promises: T busy in a callback at the timeout finishes it first, then the call ends with the timeout; and
 * then a reply that is in by the time T is back in its wait is returned, also if it came after the timeout (the
 * waiting thread checks the timeout, and it was not waiting: the call had not ended; in take-over mode it ended at
 * the timeout and the reply is dropped).
 *
 * <p>PolicyCurrent: neither ORB has one ({@code resolve_initial_references("PolicyCurrent")} fails, in both modes:
 * JacORB 3.9 with {@code InvalidName}, the GlassFish ORB 4.2 asks its initial-references server), so there are no
 * thread-level policy overrides a callback on the original thread could see. The rule (user guide, "Callbacks on
 * the original thread"): a callback on the original thread runs with that thread's state, as in the one-JVM
 * program, except the ORB's record of the call the thread waits in, set aside while it runs; the one such record
 * that times calls, JacORB's invocation context (the waiting call's deadline), is tested in
 * {@code IiopOriginalTimeoutTest}. With a {@code PolicyCurrent}, the thread's overrides would time a callback's own
 * calls, each from its own start.
 */
@ExtendWith(SitesExtension.class)
class IiopOriginalReplyTimeoutTest {

    enum Orb {
        JACORB(JacorbScenesSite.ReplyTimeouts.class, "jacorb.connection.client.pending_reply_timeout", "TIMEOUT"),
        GLASSFISH(GlassFishScenesSite.ReplyTimeouts.class, "com.sun.corba.ee.transport.ORBWaitForResponseTimeout", "COMM_FAILURE");

        final Class<? extends SiteApp> site;
        final String property;
        final String timeout; // the exception's simple name

        Orb(Class<? extends SiteApp> site, String property, String timeout) {
            this.site = site;
            this.property = property;
            this.timeout = timeout;
        }
    }

    static Stream<Arguments> setups() {
        return Stream.of(Orb.values()).flatMap(o -> Stream.of(Mode.values()).map(m -> Arguments.of(o, m)));
    }

    @BeforeAll
    static void agentIsBuilt() {
        JrmpZigzagTest.agentIsBuilt();
    }

    /** Sites A, whose ORB has the reply timeout {@code millis}, and B, whose ORB has none (its calls back never end early). */
    private static List<Site> start(SiteCluster cluster, Orb orb, Mode mode, long millis) {
        return cluster.start(spec("A", orb, mode, millis), spec("B", orb, mode, 0));
    }

    private static SiteSpec spec(String name, Orb orb, Mode mode, long millis) {
        SiteSpec s = SiteSpec.app(name, orb.site).javaAgent(JrmpZigzagTest.AGENT);
        if (millis > 0) {
            s = s.systemProperty(orb.property, Long.toString(millis));
        }
        return mode == Mode.ORIGINAL ? s.systemProperty("dthreads.callbacks", "original") : s;
    }

    @ParameterizedTest
    @MethodSource("setups")
    void callbacksKeepComingYetTheCallEndsAtItsTimeoutWhenNoReplyComes(Orb orb, Mode mode, SiteCluster cluster) {
        // B calls A back every 200 ms (up to 5 s): were the timeout started again at each re-entry of the ORB's wait,
        // the call would last until B stops calling back
        List<Site> sites = start(cluster, orb, mode, 2000);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "ticking");
        String outcome = outcome(cluster, a, "ticking");
        assertTrue(outcome.startsWith("failed: ") && outcome.contains(orb.timeout), outcome);
        assertTrue(millis(outcome) >= 1900 && millis(outcome) < 3500, outcome);
        assertTrue(b.run("events").contains("B tick 2 got quick on " + mode.on("ticking")), b.run("events"));
        b.run("release", "stop");
        b.run("release", "reply");
    }

    @ParameterizedTest
    @MethodSource("setups")
    void aCallbackDuringTheWaitDoesNotEndTheCallEarly(Orb orb, Mode mode, SiteCluster cluster) {
        List<Site> sites = start(cluster, orb, mode, 8000);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "callbackThenReply");
        awaitUntil(() -> b.run("events").contains("B got quick on " + mode.on("callbackThenReply")));
        awaitUntil(() -> elapsed(a, "callbackThenReply") >= 1500);
        assertEquals("running", a.run("peek", "T-callbackThenReply"));
        b.run("release", "reply");
        String outcome = outcome(cluster, a, "callbackThenReply");
        assertTrue(outcome.startsWith("returned: B replied after "), outcome);
    }

    @ParameterizedTest
    @MethodSource("setups")
    void aCallbackRunningPastTheTimeoutCompletesAndThenTheCallEndsWithTheTimeout(Orb orb, Mode mode,
            SiteCluster cluster) {
        List<Site> sites = start(cluster, orb, mode, 1500);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "callbackBlocks");
        awaitUntil(() -> a.run("events").contains("callback starts on " + mode.on("callbackBlocks")));
        if (mode == Mode.ORIGINAL) { // T runs the callback: its call ends when the callback has
            awaitUntil(() -> elapsed(a, "callbackBlocks") >= 2000);
            assertEquals("running", a.run("peek", "T-callbackBlocks"));
        } else {
            awaitUntil(() -> !a.run("peek", "T-callbackBlocks").equals("running"));
        }
        a.run("release", "callback");
        String outcome = outcome(cluster, a, "callbackBlocks");
        assertTrue(outcome.startsWith("failed: ") && outcome.contains(orb.timeout), outcome);
        assertTrue(millis(outcome) >= 1400, outcome);
        awaitUntil(() -> b.run("events").contains("B got callback done on " + mode.on("callbackBlocks")));
        b.run("release", "reply");
    }

    @ParameterizedTest
    @MethodSource("setups")
    void theOwnReplyArrivingInTimeDuringACallbackIsReturnedAlthoughTheCallbackEndsAfterTheTimeout(Orb orb, Mode mode,
            SiteCluster cluster) {
        List<Site> sites = start(cluster, orb, mode, 4000);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "replyDuringCallback");
        awaitUntil(() -> a.run("events").contains("callback starts on " + mode.on("replyDuringCallback")));
        b.run("release", "reply");
        awaitUntil(() -> b.run("events").contains("B replies"));
        assertEquals("returned: pong", a.run("ping")); // on the same connection: T's reply is in at A
        long at = elapsed(a, "replyDuringCallback");
        assertTrue(at < 3500, "the reply came before the timeout (" + at + " ms)");
        awaitUntil(() -> elapsed(a, "replyDuringCallback") > 4300);
        a.run("release", "callback");
        String outcome = outcome(cluster, a, "replyDuringCallback");
        assertTrue(outcome.startsWith("returned: B replied after "), outcome);
        awaitUntil(() -> b.run("events").contains("B got callback done on " + mode.on("replyDuringCallback")));
    }

    @ParameterizedTest
    @MethodSource("setups")
    void aReplyArrivingAfterTheTimeoutIsReturnedOnlyIfTheCallerWasStillInACallback(Orb orb, Mode mode,
            SiteCluster cluster) {
        // original mode: T runs the callback past the timeout, the reply comes, T returns it (the call had not ended);
        // take-over mode: the call ended at the timeout, the reply is dropped
        List<Site> sites = start(cluster, orb, mode, 1500);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "replyDuringCallback");
        awaitUntil(() -> a.run("events").contains("callback starts on " + mode.on("replyDuringCallback")));
        awaitUntil(() -> elapsed(a, "replyDuringCallback") >= 2000);
        b.run("release", "reply");
        awaitUntil(() -> b.run("events").contains("B replies"));
        assertEquals("returned: pong", a.run("ping")); // on the same connection: T's reply is in at A
        a.run("release", "callback");
        String outcome = outcome(cluster, a, "replyDuringCallback");
        if (mode == Mode.ORIGINAL) {
            assertTrue(outcome.startsWith("returned: B replied after "), outcome);
        } else {
            assertTrue(outcome.startsWith("failed: ") && outcome.contains(orb.timeout), outcome);
            assertTrue(millis(outcome) < 2000, outcome);
        }
        awaitUntil(() -> b.run("events").contains("B got callback done on " + mode.on("replyDuringCallback")));
    }

    @ParameterizedTest
    @MethodSource("setups")
    void aCallThatACallbackMakesHasItsOwnTimeoutNotWhatIsLeftOfTheWaitingCalls(Orb orb, Mode mode,
            SiteCluster cluster) {
        // T's call times out at 3 s; the callback's own call to B starts after 1.5 s: with what is left of T's
        // timeout it would fail at 3 s, with its own at 4.5 s or later
        List<Site> sites = start(cluster, orb, mode, 3000);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "callbackCallsOut");
        awaitUntil(() -> a.run("events").contains("callback waits on " + mode.on("callbackCallsOut")));
        awaitUntil(() -> elapsed(a, "callbackCallsOut") >= 1500);
        a.run("release", "go");
        awaitUntil(() -> b.run("events").contains("B slow starts"));
        awaitUntil(() -> elapsed(a, "callbackCallsOut") >= 3600);
        assertFalse(b.run("events").contains("B got nested"), b.run("events")); // still waiting for slow
        b.run("release", "slow");
        awaitUntil(() -> b.run("events").contains("B got nested "));
        assertTrue(b.run("events").contains("B got nested returned: slow done"), b.run("events"));
        String outcome = outcome(cluster, a, "callbackCallsOut");
        assertTrue(outcome.startsWith("failed: ") && outcome.contains(orb.timeout), outcome);
        b.run("release", "reply");
    }

    @ParameterizedTest
    @MethodSource("setups")
    void thereIsNoPolicyCurrentSoNoThreadOverridesForACallbackToSee(Orb orb, Mode mode, SiteCluster cluster) {
        // JacORB: InvalidName; the GlassFish ORB asks its initial-references server (ORBInitialPort), and none is there
        SiteSpec spec = spec("A", orb, mode, 0);
        if (orb == Orb.GLASSFISH) { // give up connecting to that server within 0.5 s, not a minute
            spec = spec.systemProperty("com.sun.corba.ee.transport.ORBTCPConnectTimeouts", "10:500:100:100");
        }
        Site a = cluster.start(spec);
        String r = a.run("policyCurrent");
        assertTrue(orb == Orb.JACORB ? r.equals("failed: InvalidName") : r.startsWith("failed: "), r);
    }
}
