package org.dthreads.rmi.internal;

import java.rmi.Remote;
import java.rmi.ServerException;
import java.rmi.server.RemoteRef;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.dthreads.internal.KernelLink;
import org.dthreads.internal.PeerHellos;
import org.dthreads.internal.RateLimitedLog;
import org.dthreads.internal.SiteHelloAnswer;
import org.dthreads.monitor.spi.RemoteMonitorSite;

/**
 * Site hellos over JRMP (issue 15 §5, duplicate site ids): the two sites of a twin call tell each other their
 * site id and incarnation token, so that each one's {@code PeerSites} can tell two live sites with one id from
 * a restart. The twin call itself carries nothing more (its class is its one extra {@code long}).
 *
 * <p><b>Client.</b> {@link #afterTwinCall} runs after each twin call; when {@link PeerHellos#due} says a hello
 * to the call's endpoint is due (the first call, then once per refresh period while calls continue), it hands
 * one {@link RemoteMonitorSite#SITE_HELLO} request to a daemon thread: a call of
 * {@link MonitorPort#dthreads$diagnose} through the same stub's {@link RemoteRef} (its endpoint and socket
 * factories), with a class of this site (its site half is this site's id) and this site's incarnation. The
 * answer is the server's {@code "ssssssss:iiiiiiiiiiiiiiii"}; both sides call {@code observePeer} with the
 * other's. The application call is never delayed or failed by it.
 *
 * <p><b>Server.</b> {@link #answer}, called by {@code MonitorPort.dthreads$diagnose} for that op code before
 * anything else.
 *
 * <p><b>Bounds.</b> At most {@value #MAX_THREADS} hellos at once (JRMP calls have no timeout: a hung peer
 * holds a thread); a hello that finds them busy is dropped and comes again a refresh period later. A peer that
 * cannot answer (no dthreads: unknown method hash; an older dthreads: {@code IllegalArgumentException}, unknown
 * operation) costs one rate-limited line and is not asked again for a day ({@link PeerHellos#giveUp}).
 * Malformed hellos and answers: a rate-limited line, nothing observed, never an exception at the caller.
 *
 * <p>Runs on the bootstrap class path (JDK, dthreads-api and monitor-lib types only). Thread-safe: state is
 * {@link PeerHellos}' table and the executor.
 */
public final class SiteHellos {

    static final int MAX_THREADS = 4;

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(SiteHellos.class);
    private static final ThreadPoolExecutor SENDERS = new ThreadPoolExecutor(0, MAX_THREADS, 30, TimeUnit.SECONDS,
            new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "dthreads-site-hello");
                t.setDaemon(true);
                return t;
            });

    private SiteHellos() {}

    /** Client: after a twin call through {@code ref}; sends a hello on a daemon thread if one is due. Never throws. */
    static void afterTwinCall(RemoteRef ref, Remote target) {
        try {
            String endpoint = RmiClientHook.endpointOf(ref);
            if (PeerHellos.due(endpoint)) {
                SENDERS.execute(() -> send(ref, target, endpoint));
            }
        } catch (RejectedExecutionException busy) {
            LOG.warn("site-hello-busy", "dthreads: " + MAX_THREADS + " site hellos are still waiting for answers"
                    + " (hung peers?); skipping one, it is sent again later");
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("site-hello-failed", "dthreads: could not send a site hello: " + e);
        }
    }

    static void send(RemoteRef ref, Remote target, String endpoint) {
        String answer;
        try {
            Object[] args = {RemoteMonitorSite.SITE_HELLO, KernelLink.currentClass(), KernelLink.siteIncarnation(),
                0L, 0};
            answer = (String) ref.invoke(target, JrmpMonitorTransport.DIAGNOSE_METHOD, args,
                    JrmpMonitorTransport.DIAGNOSE_METHOD_HASH);
        } catch (ServerException e) {
            if (RmiClientHook.isUnknownMethodHash(e)) {
                cannotAnswer(endpoint, "it does not run dthreads");
                return;
            }
            failed(endpoint, e);
            return;
        } catch (IllegalArgumentException e) {
            cannotAnswer(endpoint, "it runs an older dthreads (" + e.getMessage() + ")");
            return;
        } catch (Exception | LinkageError e) {
            failed(endpoint, e);
            return;
        }
        SiteHelloAnswer.read(answer, "jrmp " + endpoint, LOG, "");
    }

    private static void cannotAnswer(String endpoint, String why) {
        PeerHellos.giveUp(endpoint);
        LOG.warn("site-hello-unanswered", "dthreads: " + endpoint + " does not answer site hellos: " + why
                + "; two sites with one site id are not detected through it");
    }

    private static void failed(String endpoint, Throwable e) {
        LOG.warn("site-hello-failed", "dthreads: site hello to " + endpoint + " failed (sent again later): " + e);
    }

    /**
     * Server: serves a hello from {@code clientHost} and returns this site's identity as text.
     *
     * @param threadClass a class of the asking site (its site half is the asker's site id)
     * @param incarnation the asker's incarnation token
     * @param clientHost where the hello came from, for log lines
     * @return this site's {@link SiteHelloAnswer#format}, also for a malformed hello (logged, nothing observed)
     */
    static String answer(long threadClass, long incarnation, String clientHost) {
        return SiteHelloAnswer.serve(threadClass, incarnation, "jrmp client " + clientHost, LOG, "");
    }
}
