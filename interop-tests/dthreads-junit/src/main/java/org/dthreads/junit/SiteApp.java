package org.dthreads.junit;

/**
 * The code of a site driven by the kit's {@link SiteMain site runtime}: started with
 * {@link SiteSpec#app(String, Class)}, it exports its objects, {@link SiteContext#publish publishes}
 * their endpoints and registers the {@link SiteContext#step steps} the test runs.
 *
 * <p>Implementations need a public no-argument constructor and must not depend on JUnit or other
 * test-only libraries unless those are on the site's class path (by default they are: the site
 * inherits the test's class path).
 *
 * <h2>Threading contract</h2>
 * {@link #start} is called once, on the site's main thread, after the control channel is up; the
 * site reports ready when it returns. Steps run later, each on its own new thread, concurrently
 * with each other and with the control channel.
 */
public interface SiteApp {

    /**
     * Sets the site up. Throwing fails the site's start: the test sees the exception's stack trace
     * in the failure message.
     *
     * @param context the site's view of the runtime, to publish endpoints and register steps with
     * @throws Exception if the site cannot be set up; the site's start then fails
     */
    void start(SiteContext context) throws Exception;
}
