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
         *
         * @param args the arguments given to {@code Site.run}
         * @return the step's result text, or null for none
         * @throws Exception any failure of the step, reported to the test
         */
        String run(List<String> args) throws Exception;
    }

    /**
     * This site's name, as given in its {@link SiteSpec}.
     *
     * @return the site's name
     */
    String siteName();

    /**
     * The program arguments given with {@link SiteSpec#args(String...)} (or to the main class).
     *
     * @return the program arguments
     */
    List<String> args();

    /**
     * The address other sites should use to reach this one: the value of
     * {@code java.rmi.server.hostname}, which the kit sets to {@code 127.0.0.1} or to the site's
     * network-namespace address.
     *
     * @return the host name or address of this site
     */
    String host();

    /**
     * Publishes an endpoint (for example {@code ior.Account=IOR:...}); the test reads it with
     * {@link Site#endpoint(String)} and every other site of the cluster with {@link #peerEndpoint}.
     * Publishing the same key again replaces the value. Keys and values may hold any text.
     *
     * @param key the endpoint's name
     * @param value the endpoint's value
     */
    void publish(String key, String value);

    /**
     * Another site's endpoint, waiting up to {@code timeout} for that site to publish it.
     *
     * @param site the name of the other site
     * @param key the endpoint's name, as published by that site
     * @param timeout how long to wait for it
     * @return the endpoint's value
     * @throws IllegalStateException if it did not arrive in time
     */
    String peerEndpoint(String site, String key, Duration timeout);

    /**
     * {@link #peerEndpoint(String, String, Duration)} with a 30 s bound.
     *
     * @param site the name of the other site
     * @param key the endpoint's name, as published by that site
     * @return the endpoint's value
     * @throws IllegalStateException if it did not arrive within 30 s
     */
    default String peerEndpoint(String site, String key) {
        return peerEndpoint(site, key, Duration.ofSeconds(30));
    }

    /**
     * Registers (or replaces) a step the test can run with {@link Site#run(String, String...)}.
     *
     * @param name the name the test passes to {@code Site.run}
     * @param step the code to run
     */
    void step(String name, Step step);

    /**
     * Creates an RMI registry on a free port (port 0, never a fixed one) and publishes its port as
     * {@code rmi.registry.port}. Call at most once per site.
     *
     * @return the new registry
     * @throws RemoteException if the registry cannot be created or exported
     */
    Registry createRegistry() throws RemoteException;

    /**
     * Reports the site ready now (idempotent). Only needed by main classes that keep running after
     * they are ready; a {@link SiteApp} is ready when {@code start} returns and a main class when
     * {@code main} returns.
     */
    void ready();
}
