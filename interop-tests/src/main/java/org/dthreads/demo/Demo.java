package org.dthreads.demo;

import example.zigzag.corba.CorbaHopSite;
import example.zigzag.rmi.HopSite;
import org.dthreads.junit.SiteApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.dthreads.junit.DeadlockEvidence;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteReport;
import org.dthreads.junit.SiteSpec;

/**
 * {@code ./dthreads demo}: a zigzag across separate JVMs on loopback (site A's synchronized
 * {@code forward} calls site B, whose {@code forward} calls back into A), over Java RMI and over
 * CORBA, each first with dthreads, printing every hop, then without, showing the deadlock and
 * explaining it from the sites' thread dumps; then {@code synchronized (counterStub)} from two client JVMs
 * on a Java RMI counter, with dthreads (every update kept) and without (updates lost). Exit status 0 when
 * both dthreads runs completed, both controls deadlocked, the counter was exact with dthreads and lost
 * updates without.
 */
public final class Demo {

    private static final Duration COMPLETE_BOUND = Duration.ofSeconds(30);
    private static final Duration DEADLOCK_BOUND = Duration.ofSeconds(3);
    private static final String ROUTE = "A,B,A";

    private Demo() {}

    public static void main(String[] args) {
        Path agent = Path.of(args.length > 1 && args[0].equals("--agent") ? args[1] : "dthreads-agent/target/dthreads-agent.jar");
        if (!Files.isRegularFile(agent)) {
            System.err.println("dthreads demo: no agent jar at " + agent.toAbsolutePath() + " (build with ./mvnw -B install -DskipTests)");
            System.exit(2);
        }
        System.out.println("""
                dthreads demo: the zigzag
                  site A: synchronized forward() { ... B.forward() ... }   (holds A's monitor while it calls B)
                  site B: synchronized forward() { ... A.forward() ... }   (calls back into A)
                Two JVMs on 127.0.0.1 for each run: over Java RMI (JRMP, a registry per site on a free port),
                then over CORBA (JacORB, IIOP, ORBs on port 0, IORs passed back).
                """);
        boolean rmiCompleted = withDthreads("1. Java RMI with dthreads", HopSite.class, agent, List.of());
        boolean rmiDeadlocked = withoutDthreads("2. Java RMI without dthreads (the control)", HopSite.class);
        boolean corbaCompleted = withDthreads("3. CORBA with dthreads (the agent, and the dthreads ORB initializer)",
                CorbaHopSite.class, agent, List.of("dthreads"));
        boolean corbaDeadlocked = withoutDthreads("4. CORBA without dthreads (the control)", CorbaHopSite.class);
        System.out.println();
        System.out.println("""
                dthreads demo: synchronized on a stub
                  two client JVMs, each %d times:  synchronized (counter) { int v = counter.get(); counter.set(v + 1); }
                  where counter is a Java RMI stub of an object on a third JVM, whose own synchronized bump() runs %d times
                  meanwhile.""".formatted(COUNTER_ROUNDS, LOCAL_ROUNDS));
        int exact = 2 * COUNTER_ROUNDS + LOCAL_ROUNDS;
        int withValue = counter("5. with dthreads", agent);
        boolean counterExact = withValue == exact;
        System.out.println("   counter = " + withValue + " of " + exact + (counterExact
                ? ": every update kept. The block locked the object at its site (a lease held across both calls),"
                        + " excluding the other client and the object's own synchronized method."
                : ": WRONG, updates were lost with dthreads"));
        int withoutValue = -1;
        for (int round = 0; round < 3 && (withoutValue < 0 || withoutValue == exact); round++) {
            withoutValue = counter(round == 0 ? "6. without dthreads (the control)" : "   again (no loss in that round)", null);
        }
        boolean counterLost = withoutValue >= 0 && withoutValue < exact;
        System.out.println("   counter = " + withoutValue + " of " + exact + (counterLost ? ": " + (exact - withoutValue)
                + " updates lost. Each client locked only its own local stub, so the read-modify-writes interleaved."
                : ": the control lost nothing"));
        System.out.println();
        System.out.println("summary: with dthreads the zigzag " + (rmiCompleted && corbaCompleted ? "completed" : "DID NOT complete")
                + " over RMI and CORBA; without dthreads it " + (rmiDeadlocked && corbaDeadlocked
                        ? "deadlocked over both, as the JVM alone must" : "DID NOT deadlock everywhere")
                + ". synchronized (stub) " + (counterExact ? "excluded across JVMs" : "DID NOT exclude") + " with dthreads"
                + (counterLost ? " and lost updates without" : " and the control lost nothing") + ".");
        System.exit(rmiCompleted && rmiDeadlocked && corbaCompleted && corbaDeadlocked && counterExact && counterLost ? 0 : 1);
    }

    private static final int COUNTER_ROUNDS = 200;
    private static final int LOCAL_ROUNDS = 100;

    /** One run of the counter: server S and clients C1, C2, all with the agent or all without; the final value. */
    private static int counter(String title, Path agent) {
        System.out.println("== " + title + (agent == null ? ": no agent" : ": java -javaagent:" + agent));
        try (SiteCluster cluster = new SiteCluster()) {
            List<Site> sites = cluster.start(counterSite("S", example.monitors.rmi.CounterSites.Server.class, agent),
                    counterSite("C1", example.monitors.rmi.CounterSites.Client.class, agent),
                    counterSite("C2", example.monitors.rmi.CounterSites.Client.class, agent));
            return cluster.assertCompletesWithin(COMPLETE_BOUND, () -> {
                java.util.concurrent.CompletableFuture<String> c1 = java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> sites.get(1).run("increment", Integer.toString(COUNTER_ROUNDS)));
                java.util.concurrent.CompletableFuture<String> c2 = java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> sites.get(2).run("increment", Integer.toString(COUNTER_ROUNDS)));
                sites.get(0).run("bumpLocally", Integer.toString(LOCAL_ROUNDS));
                c1.join();
                c2.join();
                return Integer.parseInt(sites.get(0).run("value"));
            });
        } catch (AssertionError | RuntimeException e) {
            System.out.println("   FAILED: " + e.getMessage());
            return -1;
        }
    }

    private static SiteSpec counterSite(String name, Class<? extends SiteApp> app, Path agent) {
        SiteSpec spec = SiteSpec.app(name, app);
        return agent == null ? spec : spec.javaAgent(agent);
    }

    private static boolean withDthreads(String title, Class<? extends SiteApp> app, Path agent, List<String> args) {
        System.out.println("== " + title + ": java -javaagent:" + agent);
        try (SiteCluster cluster = new SiteCluster()) {
            List<Site> sites = cluster.start(SiteSpec.app("A", app).javaAgent(agent).args(args.toArray(String[]::new)),
                    SiteSpec.app("B", app).javaAgent(agent).args(args.toArray(String[]::new)));
            long start = System.nanoTime();
            cluster.assertCompletesWithin(COMPLETE_BOUND, () -> sites.get(0).run("route", ROUTE));
            long millis = (System.nanoTime() - start) / 1_000_000;
            printHops(sites);
            System.out.println("   completed in " + millis + " ms: the callback on A ran under the class of A's"
                    + " first thread, so it re-entered the monitor its own call chain holds.");
            return true;
        } catch (AssertionError | RuntimeException e) {
            System.out.println("   FAILED: " + e.getMessage());
            return false;
        }
    }

    private static boolean withoutDthreads(String title, Class<? extends SiteApp> app) {
        System.out.println();
        System.out.println("== " + title + ": the same sites, no agent (bounded wait: " + DEADLOCK_BOUND.toSeconds() + " s)");
        try (SiteCluster cluster = new SiteCluster()) {
            List<Site> sites = cluster.start(SiteSpec.app("A", app), SiteSpec.app("B", app));
            DeadlockEvidence evidence = cluster.assertDeadlocksWithin(DEADLOCK_BOUND, () -> sites.get(0).run("route", ROUTE));
            printHops(sites);
            System.out.println("   deadlocked: no progress for " + DEADLOCK_BOUND.toSeconds() + " s, every site alive. From the thread dumps:");
            for (SiteReport report : evidence.reports()) {
                explain(report);
            }
            System.out.println("""
                    Why: both threads on A act for one logical call (A -> B -> A), but the JVM knows only physical
                    threads. The middleware ran the callback on a fresh server thread, which the JVM does not recognize as the
                    thread holding the monitor, so it blocks; that thread waits for B, B waits for the callback.
                    No JVM sees a cycle (ThreadMXBean.findDeadlockedThreads finds none): it spans two processes."""
                    .indent(3).stripTrailing());
            return true;
        } catch (AssertionError | RuntimeException e) {
            System.out.println("   the control did not deadlock: " + e.getMessage());
            return false;
        }
    }

    private static void printHops(List<Site> sites) {
        List<String> hops = new ArrayList<>();
        for (Site site : sites) {
            for (String line : site.stdoutTail().split("\n")) {
                if (line.strip().startsWith("hop ")) {
                    hops.add(line.strip());
                }
            }
        }
        hops.sort(null);
        hops.forEach(h -> System.out.println("   " + h));
    }

    private static final Pattern BLOCKED = Pattern.compile(
            "^\"([^\"]+)\" #\\d+.* BLOCKED on (\\S+) owned by \"([^\"]+)\"");

    /** Prints who waits for which monitor, and what its owner is doing. */
    static void explain(SiteReport report) {
        String[] threads = report.threadDump().split("\n(?=\")");
        for (String thread : threads) {
            Matcher m = BLOCKED.matcher(thread);
            if (!m.find()) {
                continue;
            }
            String waiter = m.group(1);
            String lock = m.group(2);
            String owner = m.group(3);
            System.out.println("   site " + report.siteName() + ": thread \"" + waiter + "\" is BLOCKED on " + lock);
            System.out.println("     held by thread \"" + owner + "\" of the same site, which "
                    + (ownerIsInRemoteCall(threads, owner) ? "is waiting for the reply of its remote call to the other site"
                            : "is not in a remote call"));
        }
    }

    private static boolean ownerIsInRemoteCall(String[] threads, String owner) {
        for (String thread : threads) {
            if (thread.startsWith("\"" + owner + "\"")) {
                return thread.contains("StreamRemoteCall.executeCall") || thread.contains("UnicastRef.invoke")
                        || thread.contains("org.jacorb.orb.ReplyReceiver") || thread.contains("org.jacorb.orb.Delegate.invoke");
            }
        }
        return false;
    }
}
