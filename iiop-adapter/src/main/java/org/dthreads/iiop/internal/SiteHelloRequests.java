package org.dthreads.iiop.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.dthreads.internal.KernelLink;
import org.dthreads.internal.RateLimitedLog;
import org.dthreads.internal.SiteHelloAnswer;
import org.dthreads.monitor.RemoteMonitorException;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.omg.CORBA.BAD_OPERATION;
import org.omg.CORBA.NO_IMPLEMENT;
import org.omg.CORBA.portable.ApplicationException;

/**
 * Site hellos over IIOP in the server-to-client direction (issue 15 §5, duplicate site ids). The hello context
 * {@link SiteHelloContext} tells a server who its client is, but a reply carries no context on every path
 * dthreads hooks, so a client asks the server for its identity instead: whenever a client request carries a
 * hello (so at most once per peer and refresh period), {@link #ask} hands one {@value MonitorRequestHook#OPERATION}
 * request with op {@link RemoteMonitorSite#SITE_HELLO} to the target's object to a daemon thread. The
 * server answers ({@link #answer}, from {@code MonitorRequests}) with its {@code "ssssssss:iiiiiiiiiiiiiiii"}, as
 * over JRMP ({@code docs/wire-format.md}, "Site hellos"), and also observes the asker; the client gives the
 * answer to {@code PeerSites}. The application request is never delayed or failed by it.
 *
 * <p><b>A reference of its own.</b> The ask goes on a new reference made from the target's IOR
 * ({@link IiopMonitorTransport#copyOf}), not on the application's stub: sharing the application's JacORB delegate
 * with a concurrent request lost the replies of the application's later asynchronous (AMI) requests
 * ({@code JacorbAmiTest} timed out on both paths). The copy costs one IOR round trip per hello, on the daemon
 * thread; the ORB reuses the connection to the endpoint.
 *
 * <p><b>Bounds.</b> At most {@value #MAX_THREADS} asks at once (an IIOP call may wait as long as the ORB lets
 * it); one that finds them busy is dropped and comes again with the next hello. A peer that cannot answer (no
 * dthreads or a servant without the monitor operation, such as one whose class is outside the agent's scope
 * there: {@code BAD_OPERATION}, {@code NO_IMPLEMENT}, a user
 * exception; an older dthreads: unknown operation) costs one rate-limited line and is not asked again for a day
 * (the hello context still goes to it: an older dthreads reads it). A sender thread's own requests never ask.
 *
 * <p>Thread-safe: state is the executor and the concurrent give-up table (bounded: cleared when full, which
 * costs at most one more unanswered ask per such peer).
 */
final class SiteHelloRequests {

    static final int MAX_THREADS = 4;
    static final int MAX_GIVEN_UP = 4096;
    private static final long GIVE_UP_NANOS = TimeUnit.DAYS.toNanos(1);

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(org.dthreads.iiop.DThreadsOrbInitializer.class);
    private static final ConcurrentHashMap<Object, Long> GIVEN_UP = new ConcurrentHashMap<>();
    private static final ThreadPoolExecutor SENDERS = new ThreadPoolExecutor(0, MAX_THREADS, 30, TimeUnit.SECONDS,
            new SynchronousQueue<>(), SenderThread::new);

    /** Marks the threads that ask, so that their own requests (which go through the client hooks) never ask. */
    private static final class SenderThread extends Thread {
        SenderThread(Runnable r) {
            super(r, "dthreads-iiop-site-hello");
            setDaemon(true);
        }
    }

    private SiteHelloRequests() {}

    /**
     * Client: a request to {@code peerKey} through {@code target} carries a hello; asks the target's site for its
     * identity on a daemon thread unless that peer cannot answer. Never throws, never blocks.
     */
    static void ask(Object peerKey, Object target) {
        if (peerKey == null || target == null || Thread.currentThread() instanceof SenderThread) {
            return;
        }
        try {
            if (!givenUp(peerKey)) {
                SENDERS.execute(() -> send(peerKey, target));
            }
        } catch (RejectedExecutionException busy) {
            LOG.warn("iiop-site-hello-busy", "dthreads: " + MAX_THREADS + " IIOP site hellos are still waiting for"
                    + " answers (hung peers?); skipping one, it is sent again later");
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("iiop-site-hello-failed", "dthreads: could not send an IIOP site hello: " + e);
        }
    }

    /** Whether {@code peerKey} could not answer a hello less than a day ago. */
    static boolean givenUp(Object peerKey) {
        Long until = GIVEN_UP.get(peerKey);
        if (until == null) {
            return false;
        }
        if (System.nanoTime() - until < 0) {
            return true;
        }
        GIVEN_UP.remove(peerKey, until);
        return false;
    }

    /** Asks {@code target}'s site for its identity, on the calling thread; never throws. */
    static void send(Object peerKey, Object target) {
        IiopMonitorTransport transport = IiopMonitorTransport.instance();
        String answer;
        try {
            answer = transport.callText(IiopMonitorTransport.copyOf(target), RemoteMonitorSite.SITE_HELLO,
                    KernelLink.currentClass(), KernelLink.siteIncarnation(), 0L, 0);
        } catch (IllegalArgumentException e) {
            cannotAnswer(peerKey, target, "it runs an older dthreads (" + e.getMessage() + ")");
            return;
        } catch (RemoteMonitorException e) {
            Throwable cause = e.getCause();
            if (cause instanceof BAD_OPERATION || cause instanceof NO_IMPLEMENT
                    || cause instanceof ApplicationException) {
                cannotAnswer(peerKey, target, notDthreads(cause));
            } else {
                failed(target, e);
            }
            return;
        } catch (Exception | LinkageError e) {
            failed(target, e);
            return;
        }
        SiteHelloAnswer.read(answer, "iiop server " + transport.describe(target), LOG, "iiop-");
    }

    /**
     * Why a peer whose servant lacks the monitor operation cannot answer: no dthreads there, or (as often) its
     * servant's class was not rewritten because it is outside the agent's scope there.
     */
    static String notDthreads(Throwable cause) {
        return "it does not run dthreads, or its servant's class is outside the agent's scope there (not rewritten:"
                + " a default-excluded package such as org.jacorb., which holds JacORB's demos;"
                + " -Ddthreads.include=<package prefix> on that site rewrites it) (" + cause + ")";
    }

    private static void cannotAnswer(Object peerKey, Object target, String why) {
        if (GIVEN_UP.size() >= MAX_GIVEN_UP) {
            GIVEN_UP.clear();
        }
        GIVEN_UP.put(peerKey, System.nanoTime() + GIVE_UP_NANOS);
        LOG.warn("iiop-site-hello-unanswered", "dthreads: " + IiopMonitorTransport.instance().describe(target)
                + " does not answer site hellos: " + why + "; not asked again for a day, so two servers with one"
                + " site id are not detected through it");
    }

    private static void failed(Object target, Throwable e) {
        LOG.warn("iiop-site-hello-failed", "dthreads: site hello to " + IiopMonitorTransport.instance().describe(target)
                + " failed (sent again later): " + e);
    }

    /**
     * Server: serves a hello from {@code peer} and returns this site's identity as text.
     *
     * @param threadClass a class of the asking site (its site half is the asker's site id)
     * @param incarnation the asker's incarnation token
     * @param peer where the hello came from, for log lines
     * @return this site's {@link SiteHelloAnswer#format}, also for a malformed hello (logged, nothing observed)
     */
    static String answer(long threadClass, long incarnation, String peer) {
        return SiteHelloAnswer.serve(threadClass, incarnation, peer, LOG, "iiop-");
    }
}
