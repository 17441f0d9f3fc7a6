package org.dthreads.interop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * CORBA Messaging timeouts on JacORB against callbacks in {@code -Ddthreads.callbacks=original} mode (issue 18) when
 * JacORB times them on its selector instead of a timer thread per call: with {@code jacorb.use_timer_queue=on}, and
 * with {@code jacorb.connection.nonblocking=on} (which also moves the connections to NIO). There the deadline is a
 * {@code SelectorTimer} that JacORB's {@code SelectorManager} fires (it sets the placeholder's timeout and notifies
 * its {@code lock}; it never waits on it, so a callback's wake-up cannot be taken for the deadline, which the timer
 * thread's patched wait guards in {@code IiopOriginalTimeoutTest}). The same scenes as there ({@link CorbaTimeoutSite},
 * reference-level {@code RelativeRoundtripTimeoutPolicy}), on both configurations: the deadline still ends a call
 * whose reply does not come; a callback does not end the wait; a reply in time while T runs a callback is returned;
 * a call that a callback makes does not take the waiting call's deadline. Both hold already (the last two by the
 * fixes of {@code JacorbReplyWait}, which this path shares).
 */
@ExtendWith(SitesExtension.class)
class IiopOriginalTimerQueueTest {

    private static final Duration BOUND = Duration.ofSeconds(30);

    /** JacORB's configurations that time Messaging policies on the selector. */
    enum Timing {
        TIMER_QUEUE("jacorb.use_timer_queue"), NONBLOCKING("jacorb.connection.nonblocking");

        final String property;

        Timing(String property) {
            this.property = property;
        }
    }

    @BeforeAll
    static void agentIsBuilt() {
        JrmpZigzagTest.agentIsBuilt();
    }

    private static List<Site> start(SiteCluster cluster, Timing timing) {
        return cluster.start(spec("A", timing), spec("B", timing));
    }

    private static SiteSpec spec(String name, Timing timing) {
        return SiteSpec.app(name, CorbaTimeoutSite.class).javaAgent(JrmpZigzagTest.AGENT)
                .systemProperty("dthreads.callbacks", "original").systemProperty(timing.property, "on");
    }

    @ParameterizedTest
    @EnumSource(Timing.class)
    void aCallWhoseReplyDoesNotComeEndsWithTimeoutAtItsDeadline(Timing timing, SiteCluster cluster) {
        List<Site> sites = start(cluster, timing);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "silent", "roundtrip", "2000");
        awaitUntil(() -> b.run("events").contains("B holds"));
        String dump = a.threadDump();
        assertFalse(dump.contains("\n\"ReplyReceiver Timer\" #"), "no timer thread: JacORB's selector times the call");
        String outcome = outcome(cluster, a, "silent");
        assertTrue(outcome.startsWith("failed: TIMEOUT after "), outcome);
        assertTrue(millis(outcome) >= 1950, outcome);
        b.run("release", "reply");
    }

    @ParameterizedTest
    @EnumSource(Timing.class)
    void aCallbackDuringTheWaitLeavesTheDeadlineAlone(Timing timing, SiteCluster cluster) {
        List<Site> sites = start(cluster, timing);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "callbackThenReply", "roundtrip", "20000");
        awaitUntil(() -> b.run("events").contains("B got quick on T-callbackThenReply"));
        awaitUntil(() -> Long.parseLong(a.run("elapsed", "T-callbackThenReply")) >= 1000);
        assertEquals("running", a.run("peek", "T-callbackThenReply"));
        b.run("release", "reply");
        String outcome = outcome(cluster, a, "callbackThenReply");
        assertTrue(outcome.startsWith("returned: B replied after "), outcome);
    }

    @ParameterizedTest
    @EnumSource(Timing.class)
    void theOwnReplyArrivingInTimeDuringACallbackIsReturnedAlthoughTheCallbackEndsAfterTheDeadline(Timing timing,
            SiteCluster cluster) {
        List<Site> sites = start(cluster, timing);
        Site a = sites.get(0);
        Site b = sites.get(1);
        a.run("start", "replyDuringCallback", "roundtrip", "5000");
        awaitUntil(() -> a.run("events").contains("callback starts on T-replyDuringCallback"));
        b.run("release", "reply");
        awaitUntil(() -> b.run("events").contains("B replies"));
        long at = Long.parseLong(a.run("elapsed", "T-replyDuringCallback"));
        assertTrue(at < 4000, "the reply came well before the deadline (" + at + " ms)");
        awaitUntil(() -> Long.parseLong(a.run("elapsed", "T-replyDuringCallback")) > 5300);
        a.run("release", "callback");
        String outcome = outcome(cluster, a, "replyDuringCallback");
        assertTrue(outcome.startsWith("returned: B replied after "), outcome);
    }

    @ParameterizedTest
    @EnumSource(Timing.class)
    void aCallThatACallbackMakesDoesNotInheritTheCallersDeadline(Timing timing, SiteCluster cluster) {
        List<Site> sites = start(cluster, timing);
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
        assertTrue(a.run("events").contains("callback calls out on T-callbackCallsOut"), a.run("events"));
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
        awaitUntil(() -> Long.parseLong(a.run("elapsed", "T-callbackThenReply")) >= 1500);
        assertEquals("running", a.run("peek", "T-callbackThenReply"));
        b.run("release", "reply");
        String outcome = outcome(cluster, a, "callbackThenReply");
        assertTrue(outcome.startsWith("returned: B replied after "), outcome);
    }

    private static SiteSpec idle(String name) {
        return SiteSpec.app(name, CorbaTimeoutSite.class).javaAgent(JrmpZigzagTest.AGENT)
                .systemProperty("dthreads.callbacks", "original")
                .systemProperty("jacorb.connection.client.idle_timeout", "300");
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
}
