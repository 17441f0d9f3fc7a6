package org.dthreads.interop;

import static org.dthreads.interop.SceneSteps.awaitUntil;
import static org.dthreads.interop.SceneSteps.elapsed;
import static org.dthreads.interop.SceneSteps.frames;
import static org.dthreads.interop.SceneSteps.millis;
import static org.dthreads.interop.SceneSteps.outcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.callbacks.edges.JacorbScenesSite;
import java.util.List;
import java.util.stream.Stream;
import org.dthreads.interop.SceneSteps.Mode;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * CORBA Messaging timeouts ({@code RelativeRoundtripTimeoutPolicy}, {@code ReplyEndTimePolicy}) on JacORB against
 * callbacks (issue 18), two JVMs ({@link JacorbScenesSite.PolicyTimeouts}, {@code TimeoutScenes}), in
 * {@code -Ddthreads.callbacks=original} and, as the control, in take-over mode: a program sees the same outcome in
 * both. Site A's thread {@code T-<scene>} calls B through a reference with the policy; B calls A back under T's class
 * (on T in original mode, on an ORB thread in take-over mode).
 *
 * <p>{@link Timing}: by default JacORB enforces these policies with a timer thread per call ({@code ReplyReceiver
 * Timer}, waiting on the reply placeholder's lock until the reply end time) and, once the reply is in, checks the
 * end time again ({@code ReplyReceiver.checkTimeout}). The timer thread is in A's thread dump from the call until
 * the reply arrives or the deadline passes; the test reads that instead of guessing times. With
 * {@code jacorb.use_timer_queue=on}, and with {@code jacorb.connection.nonblocking=on} (which also moves the
 * connections to NIO), JacORB times them on its selector instead: the deadline is a {@code SelectorTimer} that its
 * {@code SelectorManager} fires (it sets the placeholder's timeout and notifies its {@code lock}; it never waits on
 * it, so a callback's wake-up cannot be taken for the deadline, which the timer thread's patched wait guards). The
 * selector configurations run the scenes of original mode that apply to them (the deadline still ends a call whose
 * reply does not come; a callback does not end the wait; a reply in time while T runs a callback is returned; a call
 * that a callback makes does not take the waiting call's deadline: the last two by the fixes of
 * {@code JacorbReplyWait}, which this path shares), and JacORB's client idle timeout against a pending call.
 *
 * <p>Every wait is bounded ({@link SceneSteps}); a failure carries every site's thread dump and monitor dump (the site
 * kit).
 */
@ExtendWith(SitesExtension.class)
class IiopOriginalTimeoutTest {

    private static final String TIMER = "\n\"ReplyReceiver Timer\" #"; // the timer thread's dump header

    /** How JacORB times a Messaging policy: a timer thread per call (its default), or its selector. */
    enum Timing {
        TIMER_THREAD(null), TIMER_QUEUE("jacorb.use_timer_queue"), NONBLOCKING("jacorb.connection.nonblocking");

        final String property; // set to "on"

        Timing(String property) {
            this.property = property;
        }
    }

    /** The timer thread in both modes; the selector configurations in original mode. */
    static Stream<Arguments> setups() {
        return Stream.of(Arguments.of(Mode.ORIGINAL, Timing.TIMER_THREAD),
                Arguments.of(Mode.TAKE_OVER, Timing.TIMER_THREAD), Arguments.of(Mode.ORIGINAL, Timing.TIMER_QUEUE),
                Arguments.of(Mode.ORIGINAL, Timing.NONBLOCKING));
    }

    /** {@link #setups()} with each policy on the timer thread, with {@code roundtrip} on the selector. */
    static Stream<Arguments> setupsAndPolicies() {
        return setups().flatMap(s -> {
            Object[] a = s.get();
            return Stream.of("roundtrip", "replyEnd").filter(p -> a[1] == Timing.TIMER_THREAD || p.equals("roundtrip"))
                    .map(p -> Arguments.of(a[0], a[1], p));
        });
    }

    @BeforeAll
    static void agentIsBuilt() {
        JrmpZigzagTest.agentIsBuilt();
    }

    private static List<Site> start(SiteCluster cluster, Mode mode, Timing timing) {
        return cluster.start(spec("A", mode, timing), spec("B", mode, timing));
    }

    private static SiteSpec spec(String name, Mode mode, Timing timing) {
        SiteSpec s = SiteSpec.app(name, JacorbScenesSite.PolicyTimeouts.class).javaAgent(JrmpZigzagTest.AGENT);
        if (timing.property != null) {
            s = s.systemProperty(timing.property, "on");
        }
        return mode == Mode.ORIGINAL ? s.systemProperty("dthreads.callbacks", "original") : s;
    }

    @ParameterizedTest
    @MethodSource("setupsAndPolicies")
    void aCallWhoseReplyDoesNotComeEndsWithTimeoutAtItsDeadline(Mode mode, Timing timing, String policy,
            SiteCluster cluster) {
        // on the selector the deadline leaves time to read A's thread dump while T waits
        long deadline = timing == Timing.TIMER_THREAD ? 1000 : 2000;
        List<Site> sites = start(cluster, mode, timing);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "silent", policy, Long.toString(deadline));
        if (timing != Timing.TIMER_THREAD) {
            awaitUntil(() -> b.run("events").contains("B holds"));
            assertEquals(0, frames(a, TIMER), "no timer thread: JacORB's selector times the call");
        }
        String outcome = outcome(cluster, a, "silent");
        assertTrue(outcome.startsWith("failed: TIMEOUT after "), outcome);
        assertTrue(millis(outcome) >= deadline - 50, outcome);
        b.run("release", "reply");
    }

    @ParameterizedTest
    @MethodSource("setupsAndPolicies")
    void aCallbackDuringTheWaitLeavesTheDeadlineAlone(Mode mode, Timing timing, String policy, SiteCluster cluster) {
        // the deadline is far; a callback comes and goes; the reply then comes in time and is returned
        List<Site> sites = start(cluster, mode, timing);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "callbackThenReply", policy, "20000");
        awaitUntil(() -> b.run("events").contains("B got quick on " + mode.on("callbackThenReply")));
        if (timing == Timing.TIMER_THREAD) {
            assertEquals(1, frames(a, TIMER), "T's deadline is still ahead");
        } else { // no timer thread to read: T is still in its call a while after the callback
            awaitUntil(() -> elapsed(a, "callbackThenReply") >= 1000);
            assertEquals("running", a.run("peek", "T-callbackThenReply"));
        }
        b.run("release", "reply");
        String outcome = outcome(cluster, a, "callbackThenReply");
        assertTrue(outcome.startsWith("returned: B replied after "), outcome);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aCallbackRunningPastTheDeadlineCompletesAndThenTheCallEndsWithTimeout(Mode mode, SiteCluster cluster) {
        List<Site> sites = start(cluster, mode, Timing.TIMER_THREAD);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "blockingCallbackThenReply", "roundtrip", "1500");
        awaitUntil(() -> a.run("events").contains("callback starts on " + mode.on("blockingCallbackThenReply")));
        awaitUntil(() -> frames(a, TIMER) == 0 && elapsed(a, "blockingCallbackThenReply") >= 1500);
        if (mode == Mode.ORIGINAL) { // T runs the callback: its call ends when the callback has
            assertEquals("running", a.run("peek", "T-blockingCallbackThenReply"));
        }
        a.run("release", "callback");
        String outcome = outcome(cluster, a, "blockingCallbackThenReply");
        assertTrue(outcome.startsWith("failed: TIMEOUT after "), outcome);
        awaitUntil(() -> b.run("events").contains("B got callback done on " + mode.on("blockingCallbackThenReply")));
    }

    @ParameterizedTest
    @MethodSource("setups")
    void theOwnReplyArrivingInTimeDuringACallbackIsReturnedAlthoughTheCallbackEndsAfterTheDeadline(Mode mode,
            Timing timing, SiteCluster cluster) {
        List<Site> sites = start(cluster, mode, timing);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "replyDuringCallback", "roundtrip", "5000");
        awaitUntil(() -> a.run("events").contains("callback starts on " + mode.on("replyDuringCallback")));
        b.run("release", "reply");
        awaitUntil(() -> b.run("events").contains("B replies") && frames(a, TIMER) == 0); // the reply is in
        long at = elapsed(a, "replyDuringCallback");
        assertTrue(at < 4000, "the reply came well before the deadline (" + at + " ms)");
        awaitUntil(() -> elapsed(a, "replyDuringCallback") > 5300);
        a.run("release", "callback");
        String outcome = outcome(cluster, a, "replyDuringCallback");
        assertTrue(outcome.startsWith("returned: B replied after "), outcome);
        awaitUntil(() -> b.run("events").contains("B got callback done on " + mode.on("replyDuringCallback")));
    }

    @ParameterizedTest
    @MethodSource("setups")
    void aCallThatACallbackMakesDoesNotInheritTheCallersDeadline(Mode mode, Timing timing, SiteCluster cluster) {
        // T's reference to B has the timeout; the callback's own call to B goes through a plain reference
        List<Site> sites = start(cluster, mode, timing);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "callingCallbackThenReply", "roundtrip", "1500");
        awaitUntil(() -> b.run("events").contains("B slow starts"));
        awaitUntil(() -> elapsed(a, "callingCallbackThenReply") > 1800);
        b.run("release", "slow");
        awaitUntil(() -> b.run("events").contains("B got "));
        assertTrue(b.run("events").contains("B got nested got slow done"), b.run("events"));
        String outcome = outcome(cluster, a, "callingCallbackThenReply");
        assertTrue(outcome.startsWith("failed: TIMEOUT after "), outcome);
        assertTrue(a.run("events").contains("callback calls out on " + mode.on("callingCallbackThenReply")),
                a.run("events"));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aCallbackArrivingAfterTheCallerTimedOutIsServedOnAnotherThread(Mode mode, SiteCluster cluster) {
        // the orphan rule with a policy timeout: T is no longer waiting, so the late callback runs on an ORB thread
        List<Site> sites = start(cluster, mode, Timing.TIMER_THREAD);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "lateCallback", "roundtrip", "1000");
        String outcome = outcome(cluster, a, "lateCallback");
        assertTrue(outcome.startsWith("failed: TIMEOUT after "), outcome);
        b.run("release", "late");
        awaitUntil(() -> b.run("events").contains("B got quick on other"));
        assertTrue(a.run("events").contains("callback on other"), a.run("events"));
    }

    @Test
    void jacorbsClientIdleTimeoutLeavesTheConnectionOfAPendingCallOpenWhileItsCallerRunsCallbacks(SiteCluster cluster) {
        // jacorb.connection.client.idle_timeout: the client connection's reads time out every 300 ms; JacORB closes
        // it only if no reply is pending on it, whether or not the caller is in its wait (here it runs a callback)
        List<Site> sites = cluster.start(idle("A"), idle("B"));
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "callbackThenReply", "roundtrip", "20000");
        awaitUntil(() -> b.run("events").contains("B got quick on T-callbackThenReply"));
        awaitUntil(() -> elapsed(a, "callbackThenReply") >= 1500);
        assertEquals("running", a.run("peek", "T-callbackThenReply"));
        b.run("release", "reply");
        String outcome = outcome(cluster, a, "callbackThenReply");
        assertTrue(outcome.startsWith("returned: B replied after "), outcome);
    }

    private static SiteSpec idle(String name) {
        return spec(name, Mode.ORIGINAL, Timing.TIMER_THREAD).systemProperty("jacorb.connection.client.idle_timeout",
                "300");
    }
}
