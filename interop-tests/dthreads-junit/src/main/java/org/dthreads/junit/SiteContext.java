package org.dthreads.junit;

import java.rmi.RemoteException;
import java.rmi.registry.Registry;
import java.time.Duration;
import java.util.List;

/**
 * What a site's code sees of the kit's site runtime, inside the site's JVM: publishing endpoints,
 * reading other sites' endpoints and registering scenario steps.
 *
 * <p>A {@link SiteApp} receives it in {@link SiteApp#start}; a plain main class started with
 * {@link SiteSpec#main(String, String, String...)} gets it from {@link SiteRuntime#context()}.
 *
 * <h2>Threading contract</h2>
 * Every method is thread-safe. No method takes a lock that application code could hold, so
 * publishing and reading endpoints keep working while application threads are deadlocked.
 */
public interface SiteContext {

    /** A step of a scenario, run by {@link Site#run(String, String...)} on a new thread of the site. */
    @FunctionalInterface
    interface Step {
        /**
         * Runs the step. The returned text (null counts as empty) is what {@code Site.run} returns;
         * an exception makes {@code Site.run} throw a {@link SiteException} carrying its stack trace.
         */
        String run(List<String> args) throws Exception;
    }

    /** This site's name, as given in its {@link SiteSpec}. */
    String siteName();

    /** The program arguments given with {@link SiteSpec#args(String...)} (or to the main class). */
    List<String> args();

    /**
     * The address other sites should use to reach this one: the value of
     * {@code java.rmi.server.hostname}, which the kit sets to {@code 127.0.0.1} or to the site's
     * network-namespace address.
     */
    String host();

    /**
     * Publishes an endpoint (for example {@code ior.Account=IOR:...}); the test reads it with
     * {@link Site#endpoint(String)} and every other site of the cluster with {@link #peerEndpoint}.
     * Publishing the same key again replaces the value. Keys and values may hold any text.
     */
    void publish(String key, String value);

    /**
     * Another site's endpoint, waiting up to {@code timeout} for that site to publish it.
     *
     * @throws IllegalStateException if it did not arrive in time
     */
    String peerEndpoint(String site, String key, Duration timeout);

    /** {@link #peerEndpoint(String, String, Duration)} with a 30 s bound. */
    default String peerEndpoint(String site, String key) {
        return peerEndpoint(site, key, Duration.ofSeconds(30));
    }

    /** Registers (or replaces) a step the test can run with {@link Site#run(String, String...)}. */
    void step(String name, Step step);

    /**
     * Creates an RMI registry on a free port (port 0, never a fixed one) and publishes its port as
     * {@code rmi.registry.port}. Call at most once per site.
     */
    Registry createRegistry() throws RemoteException;

    /**
     * Reports the site ready now (idempotent). Only needed by main classes that keep running after
     * they are ready; a {@link SiteApp} is ready when {@code start} returns and a main class when
     * {@code main} returns.
     */
    void ready();
}
