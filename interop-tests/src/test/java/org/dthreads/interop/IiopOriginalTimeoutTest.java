package org.dthreads.interop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import example.callbacks.edges.CorbaTimeoutSite;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * CORBA Messaging timeouts ({@code RelativeRoundtripTimeoutPolicy}, {@code ReplyEndTimePolicy}) on JacORB against
 * callbacks (issue 18), two JVMs ({@link CorbaTimeoutSite}), in {@code -Ddthreads.callbacks=original} and, as the
 * control, in take-over mode: a program sees the same outcome in both. Site A's thread {@code T-<scene>} calls B
 * through a reference with the policy; B calls A back under T's class (on T in original mode, on an ORB thread in
 * take-over mode).
 *
 * <p>JacORB enforces these policies with a timer thread per call ({@code ReplyReceiver Timer}, waiting on the reply
 * placeholder's lock until the reply end time) and, once the reply is in, checks the end time again
 * ({@code ReplyReceiver.checkTimeout}). The timer thread is in A's thread dump from the call until the reply
 * arrives or the deadline passes; the test reads that instead of guessing times. Every wait is bounded; a failure
 * carries every site's thread dump and monitor dump (the site kit).
 */
@ExtendWith(SitesExtension.class)
class IiopOriginalTimeoutTest {

    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final String TIMER = "\n\"ReplyReceiver Timer\" #"; // the timer thread's dump header

    enum Mode {
        ORIGINAL, TAKE_OVER;

        /** Where a callback of T's class runs at A: on T, or on another thread. */
        String on(String scene) {
            return this == ORIGINAL ? "T-" + scene : "other";
        }
    }

    @BeforeAll
    static void agentIsBuilt() {
        JrmpZigzagTest.agentIsBuilt();
    }

    private static List<Site> start(SiteCluster cluster, Mode mode) {
        return cluster.start(spec("A", mode), spec("B", mode));
    }

    private static SiteSpec spec(String name, Mode mode) {
        SiteSpec s = SiteSpec.app(name, CorbaTimeoutSite.class).javaAgent(JrmpZigzagTest.AGENT);
        return mode == Mode.ORIGINAL ? s.systemProperty("dthreads.callbacks", "original") : s;
    }

    @ParameterizedTest
    @CsvSource({"ORIGINAL, roundtrip", "ORIGINAL, replyEnd", "TAKE_OVER, roundtrip", "TAKE_OVER, replyEnd"})
    void aCallWhoseReplyDoesNotComeEndsWithTimeoutAtItsDeadline(Mode mode, String policy, SiteCluster cluster) {
        List<Site> sites = start(cluster, mode);
        Site a = sites.get(0);
        a.run("start", "silent", policy, "1000");
        String outcome = outcome(cluster, a, "silent");
        assertTrue(outcome.startsWith("failed: TIMEOUT after "), outcome);
        assertTrue(millis(outcome) >= 950, outcome);
        sites.get(1).run("release", "reply");
    }

    @ParameterizedTest
    @CsvSource({"ORIGINAL, roundtrip", "ORIGINAL, replyEnd", "TAKE_OVER, roundtrip", "TAKE_OVER, replyEnd"})
    void aCallbackDuringTheWaitLeavesTheDeadlineAlone(Mode mode, String policy, SiteCluster cluster) {
        // the deadline is far; a callback comes and goes; the reply then comes in time and is returned
        List<Site> sites = start(cluster, mode);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "callbackThenReply", policy, "20000");
        awaitUntil(() -> b.run("events").contains("B got quick on " + mode.on("callbackThenReply")));
        assertEquals(1, frames(a, TIMER), "T's deadline is still ahead");
        b.run("release", "reply");
        String outcome = outcome(cluster, a, "callbackThenReply");
        assertTrue(outcome.startsWith("returned: B replied after "), outcome);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aCallbackRunningPastTheDeadlineCompletesAndThenTheCallEndsWithTimeout(Mode mode, SiteCluster cluster) {
        List<Site> sites = start(cluster, mode);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "callbackBlocks", "roundtrip", "1500");
        awaitUntil(() -> a.run("events").contains("callback starts on " + mode.on("callbackBlocks")));
        awaitUntil(() -> frames(a, TIMER) == 0 && Long.parseLong(a.run("elapsed", "T-callbackBlocks")) >= 1500);
        if (mode == Mode.ORIGINAL) { // T runs the callback: its call ends when the callback has
            assertEquals("running", a.run("peek", "T-callbackBlocks"));
        }
        a.run("release", "callback");
        String outcome = outcome(cluster, a, "callbackBlocks");
        assertTrue(outcome.startsWith("failed: TIMEOUT after "), outcome);
        awaitUntil(() -> b.run("events").contains("B got callback done on " + mode.on("callbackBlocks")));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void theOwnReplyArrivingInTimeDuringACallbackIsReturnedAlthoughTheCallbackEndsAfterTheDeadline(Mode mode,
            SiteCluster cluster) {
        List<Site> sites = start(cluster, mode);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "replyDuringCallback", "roundtrip", "8000");
        awaitUntil(() -> a.run("events").contains("callback starts on " + mode.on("replyDuringCallback")));
        b.run("release", "reply");
        awaitUntil(() -> b.run("events").contains("B replies") && frames(a, TIMER) == 0); // the reply is in
        long at = Long.parseLong(a.run("elapsed", "T-replyDuringCallback"));
        assertTrue(at < 8000, "the reply came before the deadline (" + at + " ms)");
        awaitUntil(() -> Long.parseLong(a.run("elapsed", "T-replyDuringCallback")) > 8300);
        a.run("release", "callback");
        String outcome = outcome(cluster, a, "replyDuringCallback");
        assertTrue(outcome.startsWith("returned: B replied after "), outcome);
        awaitUntil(() -> b.run("events").contains("B got callback done on " + mode.on("replyDuringCallback")));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aCallThatACallbackMakesDoesNotInheritTheCallersDeadline(Mode mode, SiteCluster cluster) {
        // T's reference to B has the timeout; the callback's own call to B goes through a plain reference
        List<Site> sites = start(cluster, mode);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "callbackCallsOut", "roundtrip", "1500");
        awaitUntil(() -> b.run("events").contains("B slow starts"));
        awaitUntil(() -> Long.parseLong(a.run("elapsed", "T-callbackCallsOut")) > 1800);
        b.run("release", "slow");
        awaitUntil(() -> b.run("events").contains("B got "));
        assertTrue(b.run("events").contains("B got nested got slow done"), b.run("events"));
        String outcome = outcome(cluster, a, "callbackCallsOut");
        assertTrue(outcome.startsWith("failed: TIMEOUT after "), outcome);
        assertTrue(a.run("events").contains("callback calls out on " + mode.on("callbackCallsOut")), a.run("events"));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aCallbackArrivingAfterTheCallerTimedOutIsServedOnAnotherThread(Mode mode, SiteCluster cluster) {
        // the orphan rule with a policy timeout: T is no longer waiting, so the late callback runs on an ORB thread
        List<Site> sites = start(cluster, mode);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "lateCallback", "roundtrip", "1000");
        String outcome = outcome(cluster, a, "lateCallback");
        assertTrue(outcome.startsWith("failed: TIMEOUT after "), outcome);
        b.run("release", "late");
        awaitUntil(() -> b.run("events").contains("B got quick on other"));
        assertTrue(a.run("events").contains("callback on other"), a.run("events"));
    }

    private static String outcome(SiteCluster cluster, Site a, String scene) {
        return cluster.assertCompletesWithin(BOUND, () -> a.run("outcome", "T-" + scene));
    }

    /** The {@code N} of an outcome ending in {@code after N ms}. */
    private static long millis(String outcome) {
        String[] words = outcome.split(" ");
        return Long.parseLong(words[words.length - 2]);
    }

    private static void awaitUntil(Callable<Boolean> condition) {
        await().atMost(BOUND).pollInterval(Duration.ofMillis(50)).until(condition);
    }

    /** How many times {@code frame} occurs in {@code site}'s thread dump. */
    private static int frames(Site site, String frame) {
        String dump = site.threadDump();
        int count = 0;
        for (int i = dump.indexOf(frame); i >= 0; i = dump.indexOf(frame, i + 1)) {
            count++;
        }
        return count;
    }
}
