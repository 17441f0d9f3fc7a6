package org.dthreads.junit;

import org.dthreads.junit.internal.SiteRuntimeImpl;

/**
 * The site runtime's entry point: the main class of every site JVM the kit starts. It opens the
 * control channel (a daemon thread reading commands from standard input and answering on standard
 * output, see {@code docs/site-harness.md}), then starts the site's {@link SiteApp} or main class
 * and reports the site ready.
 *
 * <p>Arguments (written by the kit, shown for reference):
 * {@code <site-name> <token> app|main <class-name> [args...]}. A site ends itself when its standard
 * input reaches end of file, that is when the test JVM is gone, however it ended.
 *
 * <p>Uses only the JDK (no JUnit, no Awaitility), so a site's class path needs just this kit's jar
 * and the application.
 */
public final class SiteMain {

    private SiteMain() {}

    /**
     * Starts the site; see the class comment for the arguments.
     *
     * @param args {@code <site-name> <token> app|main <class-name> [args...]}, as written by the kit
     */
    public static void main(String[] args) {
        SiteRuntimeImpl.main(args);
    }
}
