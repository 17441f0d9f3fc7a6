package org.dthreads.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue #10, "a site dies mid-chain", the same scenarios over each protocol (subclasses): a chain is
 * held at a gate inside a site (so the kill happens at a known point, with monitors held and threads
 * suspended on every site before it), that site or the one before it is killed with SIGKILL, and the
 * test checks that the chain's caller gets the protocol's exception within {@link #PROMPT}, that
 * every surviving site is left with no busy monitor, no thread suspended in an outgoing call, no
 * thread in the hop code, in the dthreads runtime or waiting for a reply, and that the next chain,
 * through a restarted site, completes as a zigzag with one class.
 */
@ExtendWith(SitesExtension.class)
abstract class SiteDeathScenarios {

    /** "Promptly": loopback peers see a killed peer's sockets closed by the kernel at once. */
    static final Duration PROMPT = Duration.ofSeconds(2);

    /** A site spec with dthreads for this protocol. */
    abstract SiteSpec spec(String name);

    /** What the caller's error must match ({@code ERR <exception chain>}). */
    abstract String failurePattern();

    /** Extra check of one hop of a trail on this protocol (default none). */
    void checkHop(String hop) {}

    @Test
    void theLastSiteKilledMidChainFailsTheCallerPromptlyAndNothingIsLeftBehind(SiteCluster cluster) {
        List<Site> s = cluster.start(spec("A"), spec("B"), spec("C"));
        Site a = s.get(0), b = s.get(1), c = s.get(2);
        cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> a.run("route", "A,B,C")); // warm: connections up

        CompletableFuture<String> chain = async(() -> a.run("route", "A,B,C*"));
        awaitAtGate(c, 1);
        // held inside C: A and B each hold their node monitor for the chain and wait in a call
        assertState(a, 1, 1);
        assertState(b, 1, 1);

        long t0 = System.nanoTime();
        assertTrue(c.crash(Duration.ofSeconds(5)), "C did not die");
        String result = bounded(chain, Duration.ofSeconds(20));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("[faults] " + getClass().getSimpleName() + ": C killed, A's caller failed after " + ms
                + " ms with " + result);
        assertTrue(result.matches(failurePattern()), result);
        assertTrue(ms < PROMPT.toMillis(), "the caller failed only after " + ms + " ms");

        awaitClean(a);
        awaitClean(b);
        Site c2 = cluster.start(spec("C2"));
        assertZigzag(cluster, a, "A,B,C2,B,A");
        awaitClean(a);
        awaitClean(b);
        awaitClean(c2);
    }

    @Test
    void aSiteKilledWhileAZigzagCallbackCallsItUnwindsBothThreadsOfTheClass(SiteCluster cluster) {
        List<Site> s = cluster.start(spec("A"), spec("B"), spec("C"));
        Site a = s.get(0), b = s.get(1), c = s.get(2);
        cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> a.run("route", "A,B,A,C"));

        // A's node monitor is held by the chain's class through two threads: the step thread (suspended
        // in its call to B) and the callback thread serving B's call, suspended in its call to C
        CompletableFuture<String> chain = async(() -> a.run("route", "A,B,A,C*"));
        awaitAtGate(c, 1);
        assertState(a, 1, 2);

        long t0 = System.nanoTime();
        assertTrue(c.crash(Duration.ofSeconds(5)), "C did not die");
        String result = bounded(chain, Duration.ofSeconds(20));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("[faults] " + getClass().getSimpleName() + ": C killed under a zigzag, A's caller failed after "
                + ms + " ms with " + result);
        assertTrue(result.matches(failurePattern()), result);
        assertTrue(ms < PROMPT.toMillis(), "the caller failed only after " + ms + " ms");

        awaitClean(a);
        awaitClean(b);
        Site c2 = cluster.start(spec("C2"));
        assertZigzag(cluster, a, "A,B,A,C2,A");
        awaitClean(a);
        awaitClean(c2);
    }

    @Test
    void aMiddleSiteKilledFailsTheCallerAndTheSiteBeyondUnwindsWhenItsHopEnds(SiteCluster cluster) {
        List<Site> s = cluster.start(spec("A"), spec("B"), spec("C"));
        Site a = s.get(0), b = s.get(1), c = s.get(2);
        cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> a.run("route", "A,B,C"));

        CompletableFuture<String> chain = async(() -> a.run("route", "A,B,C*"));
        awaitAtGate(c, 1);
        long t0 = System.nanoTime();
        assertTrue(b.crash(Duration.ofSeconds(5)), "B did not die");
        String result = bounded(chain, Duration.ofSeconds(20));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("[faults] " + getClass().getSimpleName() + ": B killed, A's caller failed after " + ms
                + " ms with " + result);
        assertTrue(result.matches(failurePattern()), result);
        assertTrue(ms < PROMPT.toMillis(), "the caller failed only after " + ms + " ms");
        awaitClean(a);

        // C's hop still runs (its caller is gone, nothing tells it): it holds C's monitor for the class
        Map<String, Integer> held = state(c);
        assertEquals(1, held.get("monitors"), c.run("state"));
        assertEquals(1, held.get("atGate"), c.run("state"));
        c.run("release");
        // its reply to the dead B fails quietly and the hop unwinds: nothing waits for B
        awaitClean(c);

        Site b2 = cluster.start(spec("B2"));
        assertZigzag(cluster, a, "A,B2,C,B2,A");
        awaitClean(a);
        awaitClean(b2);
        awaitClean(c);
    }

    @Test
    void aSiteKilledUnderAnOrphanedCallbackFailsTheCallerOnceTheCallbackUnwinds(SiteCluster cluster) {
        List<Site> s = cluster.start(spec("A"), spec("B"));
        Site a = s.get(0), b = s.get(1);
        cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> a.run("route", "A,B,A"));

        // the chain is back in A (callback thread at the gate, acting for the step thread's class);
        // killing B ends the step thread's call: it is an orphan of the callback's activation
        CompletableFuture<String> chain = async(() -> a.run("route", "A,B,A*"));
        awaitAtGate(a, 1);
        assertState(a, 1, 1);
        assertTrue(b.crash(Duration.ofSeconds(5)), "B did not die");
        // the step thread's call fails at once, but it must not run on inside the node's monitor
        // while the callback holds it: it waits until the callback's activation unwinds
        Awaitility.await("the step thread's call to end").atMost(PROMPT).pollInterval(Duration.ofMillis(20))
                .until(() -> state(a).get("suspended") == 0);
        Map<String, Integer> orphaned = state(a);
        assertEquals(1, orphaned.get("monitors"), "node monitor held by the callback: " + a.run("state"));
        // the step thread now waits in the monitor runtime for the callback's activation to unwind
        assertEquals(1, orphaned.get("dthreadsThreads"), a.run("state"));
        assertFalse(chain.isDone(), "the orphaned caller ran on while its class's callback held the monitor: "
                + chain.getNow(null));
        long t0 = System.nanoTime();
        a.run("release");
        String result = bounded(chain, Duration.ofSeconds(20));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("[faults] " + getClass().getSimpleName() + ": B killed under an orphaned callback; after the"
                + " release A's caller failed in " + ms + " ms with " + result);
        assertTrue(result.matches(failurePattern()), result);
        assertTrue(ms < PROMPT.toMillis(), "the caller failed only after " + ms + " ms after the callback unwound");
        awaitClean(a);

        Site b2 = cluster.start(spec("B2"));
        assertZigzag(cluster, a, "A,B2,A,B2,A");
        awaitClean(a);
        awaitClean(b2);
    }

    // ------------------------------------------------------------------ helpers

    void assertZigzag(SiteCluster cluster, Site from, String route) {
        String trail = cluster.assertCompletesWithin(Duration.ofSeconds(20), () -> from.run("route", route));
        assertFalse(trail.startsWith("ERR"), trail);
        String[] hops = trail.split(" > ");
        assertEquals(route.split(",").length, hops.length, trail);
        String cls = hops[0].substring(hops[0].indexOf('#') + 1).replaceAll("\\[.*", "");
        for (String hop : hops) {
            assertEquals(cls, hop.substring(hop.indexOf('#') + 1).replaceAll("\\[.*", ""), "one class along " + trail);
            checkHop(hop);
        }
    }

    static CompletableFuture<String> async(java.util.function.Supplier<String> scenario) {
        CompletableFuture<String> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(scenario.get());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "fault-scenario");
        t.setDaemon(true);
        t.start();
        return f;
    }

    static String bounded(CompletableFuture<String> f, Duration bound) {
        try {
            return f.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the chain's caller did not return within " + bound.toMillis()
                    + " ms after the fault (a silent hang)", e);
        } catch (Exception e) {
            throw new AssertionError("the scenario failed: " + e, e);
        }
    }

    static void awaitAtGate(Site site, int n) {
        Awaitility.await("a chain at " + site.name() + "'s gate").atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(20)).until(() -> site.run("atGate").equals(Integer.toString(n)));
    }

    /** Parses {@code state}'s counters. */
    static Map<String, Integer> state(Site site) {
        String line = site.run("state");
        Map<String, Integer> m = new LinkedHashMap<>();
        for (String kv : line.substring(0, line.indexOf('|')).trim().split(" ")) {
            String[] p = kv.split("=");
            m.put(p[0], Integer.parseInt(p[1]));
        }
        return m;
    }

    static void assertState(Site site, int monitors, int suspended) {
        Map<String, Integer> m = state(site);
        assertEquals(monitors, m.get("monitors"), () -> site.name() + ": " + site.run("state") + "\n" + site.run("monitors"));
        assertEquals(suspended, m.get("suspended"), () -> site.name() + ": " + site.run("state"));
    }

    /** Everything unwound on {@code site}: every counter of {@code state} is 0 (within 5 s). */
    static void awaitClean(Site site) {
        Awaitility.await(site.name() + " to be clean").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> {
                    String line = site.run("state");
                    assertTrue(state(site).values().stream().allMatch(v -> v == 0),
                            site.name() + " after the fault: " + line + "\n" + site.run("monitors"));
                });
    }
}
