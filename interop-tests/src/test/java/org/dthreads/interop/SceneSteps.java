package org.dthreads.interop;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Callable;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;

/**
 * What the callback-edge and timeout tests ({@code IiopOriginalThreadEdgesTest}, {@code IiopOriginalTimeoutTest},
 * {@code IiopOriginalReplyTimeoutTest}) ask of their scene sites ({@code example.callbacks.edges}): bounded waits, a
 * thread {@code T-<scene>}'s outcome and time, and frames in a site's thread dump.
 */
final class SceneSteps {

    static final Duration BOUND = Duration.ofSeconds(30);

    /** The callback mode of both sites. */
    enum Mode {
        ORIGINAL, TAKE_OVER;

        /** Where a callback of T's class runs at A: on T, or on another thread. */
        String on(String scene) {
            return this == ORIGINAL ? "T-" + scene : "other";
        }
    }

    private SceneSteps() {}

    /** The tests' one way of waiting: bounded by {@link #BOUND}, polled every 50 ms (each poll asks a site). */
    static void awaitUntil(Callable<Boolean> condition) {
        await().atMost(BOUND).pollInterval(Duration.ofMillis(50)).until(condition);
    }

    /** The outcome of {@code a}'s thread {@code T-<scene>}, within {@link #BOUND}. */
    static String outcome(SiteCluster cluster, Site a, String scene) {
        return cluster.assertCompletesWithin(BOUND, () -> a.run("outcome", "T-" + scene));
    }

    /** How long site {@code a}'s thread {@code T-<scene>} has been (or was) in its call, in ms. */
    static long elapsed(Site a, String scene) {
        return Long.parseLong(a.run("elapsed", "T-" + scene));
    }

    /** The {@code N} of an outcome ending in {@code after N ms}. */
    static long millis(String outcome) {
        String[] words = outcome.split(" ");
        return Long.parseLong(words[words.length - 2]);
    }

    /** How many times {@code frame} occurs in {@code site}'s thread dump. */
    static int frames(Site site, String frame) {
        String dump = site.threadDump();
        int count = 0;
        for (int i = dump.indexOf(frame); i >= 0; i = dump.indexOf(frame, i + 1)) {
            count++;
        }
        return count;
    }
}
