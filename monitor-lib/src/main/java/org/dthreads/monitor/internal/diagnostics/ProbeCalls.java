package org.dthreads.monitor.internal.diagnostics;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.dthreads.ThreadClass;
import org.dthreads.internal.RateLimitedLog;
import org.dthreads.monitor.RemoteMonitorException;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.dthreads.monitor.spi.RemoteMonitorTransport;
import org.dthreads.monitor.spi.RemoteMonitors;

/**
 * Sends the {@link RemoteMonitorSite#PROBE_EDGES} requests of this site to its peers, each bounded in time: a
 * peer that never answers (a hung JVM; JRMP waits on a socket read without end) costs one of a few daemon threads
 * until its connection gives up, never the deadlock watch or a server thread serving a probe. The caller waits at
 * most its budget, then logs a rate-limited line and goes on as if no cycle were found. So does a peer without
 * dthreads, with an older dthreads (no text probes), or unreachable.
 *
 * <h2>Threads</h2>
 * At most {@link #MAX_THREADS}, created on demand, each ending after {@link #KEEP_ALIVE_SECONDS} idle; when all
 * are busy (peers that hang), a request is not sent at all (logged) rather than queued behind them. The pool
 * is the only state; it is thread-safe.
 */
final class ProbeCalls {
    static final int MAX_THREADS = 4;
    static final long KEEP_ALIVE_SECONDS = 10;
    private static final RateLimitedLog LOG = RateLimitedLog.forClass(DeadlockProbe.class);
    private static final ThreadPoolExecutor POOL = new ThreadPoolExecutor(0, MAX_THREADS, KEEP_ALIVE_SECONDS,
            TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "dthreads-deadlock-probe");
                t.setDaemon(true);
                return t;
            });

    private ProbeCalls() {}

    /**
     * Asks the site of {@code target} to chase {@code chased} back to {@code initiator}.
     *
     * @param target     a remote reference the chased class is calling now
     * @param waitMillis how long to wait for the answer; the peer is given a little less for its own forwards
     * @return the peer's answer ({@code WaitEdge} lines, empty if it found no cycle), or null if there was none
     *         in time or the peer could not answer (logged)
     */
    static String ask(Object target, long chased, long initiator, long waitMillis, int hopsLeft) {
        RemoteMonitorTransport transport = RemoteMonitors.transportFor(target);
        if (transport == null) {
            return null;
        }
        long peerBudget = waitMillis - DeadlockProbe.HOP_MARGIN_MILLIS;
        if (peerBudget < DeadlockProbe.MIN_BUDGET_MILLIS) {
            LOG.warn("probe-budget", "dthreads: a deadlock probe for " + ThreadClass.format(chased) + " ran out of"
                    + " time before it could ask " + describe(transport, target) + " (the chain is long or slow)");
            return null;
        }
        Future<String> answer;
        try {
            answer = POOL.submit(() -> transport.callText(target, RemoteMonitorSite.PROBE_EDGES, chased, initiator,
                    peerBudget, hopsLeft));
        } catch (RejectedExecutionException e) {
            LOG.warn("probe-busy", "dthreads: a deadlock probe for " + ThreadClass.format(chased) + " was not sent to "
                    + describe(transport, target) + ": " + MAX_THREADS + " earlier probes still wait for peers that do"
                    + " not answer");
            return null;
        }
        try {
            return answer.get(waitMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            answer.cancel(true);
            LOG.warn("probe-timeout", "dthreads: " + describe(transport, target) + " did not answer a deadlock probe"
                    + " within " + waitMillis + " ms (hung, or too busy); no cycle through it is reported");
            return null;
        } catch (InterruptedException e) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            String why = cause instanceof IllegalArgumentException
                    ? "its dthreads does not answer deadlock probes with edges (an older version?)"
                    : cause instanceof RemoteMonitorException ? cause.getMessage() : cause.toString();
            LOG.warn("probe-failed", "dthreads: a deadlock probe could not ask " + describe(transport, target)
                    + ": " + why + "; no cycle through it is reported");
            return null;
        }
    }

    private static String describe(RemoteMonitorTransport transport, Object target) {
        try {
            return transport.describe(target);
        } catch (RuntimeException e) {
            return target.getClass().getName();
        }
    }
}
