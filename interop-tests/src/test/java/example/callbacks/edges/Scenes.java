package example.callbacks.edges;

import org.dthreads.junit.SiteContext;

/**
 * What a site of this package serves, whatever its ORB ({@link JacorbScenesSite}, {@link GlassFishScenesSite}): the
 * test's steps and the one remote operation {@code call(op, arg)}, which reaches the other sites through
 * {@link Peers}.
 */
public interface Scenes {

    /** Calls {@code call(op, arg)} on the named site's object; throws what the ORB throws. */
    interface Peers {
        String call(String site, String op, String arg) throws Exception;
    }

    /** The test's steps on this site. */
    void registerSteps(SiteContext ctx);

    /** Serves {@code call(op, arg)}. */
    String serve(String op, String arg) throws Exception;
}
