package org.dthreads.junit.internal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

import org.dthreads.junit.SiteException;

/**
 * A running site's dumps, for reports and deadlock evidence: asked of the site's control thread
 * (which answers even while the application is deadlocked), the thread dump taken from outside
 * ({@link ThreadDumps#dumpExternal}) when the site does not answer. Never throws: failures are
 * described in the text. Stateless; may be called from any thread.
 */
public final class SiteDumps {

    private SiteDumps() {}

    /** See {@code Site.threadDump(Duration)}; {@code java} is the site's java executable (jcmd is beside it). */
    public static String threadDump(String name, SiteProcess process, ControlChannel channel, Path java,
            Duration timeout) {
        if (!process.isAlive()) {
            return "(no thread dump: " + name + " is not running)";
        }
        if (channel.controlEnabled() && channel.isHelloDone()) {
            try {
                String[] r = channel.request("THREADS", timeout);
                if ("OK".equals(r[0])) {
                    return r[1];
                }
            } catch (TimeoutException | SiteException e) {
                // fall back
            }
        }
        if (!process.isAlive()) {
            return "(no thread dump: " + name + " is not running)";
        }
        return ThreadDumps.dumpExternal(process.pid(), java, Duration.ofSeconds(10));
    }

    /** See {@code Site.monitorDump(Duration)}. */
    public static String monitorDump(String name, SiteProcess process, ControlChannel channel, Duration timeout) {
        if (!process.isAlive()) {
            return "(no monitor dump: " + name + " is not running)";
        }
        if (!channel.controlEnabled() || !channel.isHelloDone()) {
            return "(no monitor dump: site " + name + " has no control channel up)";
        }
        try {
            String[] r = channel.request("MONITORS", timeout);
            return r[1];
        } catch (TimeoutException e) {
            return "(no monitor dump: site " + name + " did not answer within " + timeout.toMillis() + " ms)";
        } catch (SiteException e) {
            return "(no monitor dump: " + e.getMessage() + ")";
        }
    }
}
