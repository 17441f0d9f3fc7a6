package org.dthreads.iiop.internal;

import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.dthreads.internal.RateLimitedLog;
import org.jacorb.orb.portableInterceptor.AbstractInterceptorIterator;
import org.jacorb.orb.portableInterceptor.InterceptorManager;
import org.omg.PortableInterceptor.InvalidSlot;

/**
 * Which JacORB ORBs with Portable Interceptors may still move calls and callbacks in
 * {@code -Ddthreads.callbacks=original} mode ({@link JacorbCallbacks}), decided once per ORB and logged once when
 * the answer is no.
 *
 * <h2>Why interceptors matter</h2>
 * Original mode runs a request on a thread other than the one JacORB would use: a handed callback runs nested on
 * the waiting caller, and without the reply-wait patch a call is sent by a helper. With server request interceptors
 * JacORB's {@code RequestProcessor.process} sets the thread-scope PICurrent of the running thread to the request's
 * slots and clears it afterwards ({@code InterceptorManager.setTSCurrent} / {@code removeTSCurrent}); with client
 * interceptors {@code Delegate.invoke_internal} copies the running thread's PICurrent into the request. Moved, a
 * caller would lose its own slots, and a request would carry a helper's; an interceptor may also keep its own
 * {@code ThreadLocal}s. So an ORB with an interceptor of unknown behaviour stays in take-over mode.
 *
 * <h2>The narrow rule</h2>
 * One direction (client or server) of an ORB may move if every request interceptor of that direction is one of
 * {@link #THREAD_STATELESS} (exact class name, so a subclass does not count) <em>and</em> the ORB allocated no
 * PICurrent slot. Both conditions are needed and together they suffice:
 * <ul>
 *   <li>{@code org.jacorb.orb.giop.BiDirConnectionClientInterceptor} (JacORB 3.9, unchanged since) reads only its
 *       ORB, the request's connection and one lazily built, ORB-wide service context (under its own lock); it adds
 *       that context to the request and sets the connection's request listener. No slot, no thread state.</li>
 *   <li>{@code org.jacorb.orb.giop.BiDirConnectionServerInterceptor} reads the request's BI_DIR_IIOP service
 *       context and registers the request's connection with the ORB's connection manager. No slot, no thread
 *       state.</li>
 *   <li>With no slot allocated every PICurrent is empty, so the set/clear of the thread-scope current by a nested
 *       dispatch and the copy made on a helper thread lose and carry nothing.</li>
 * </ul>
 * {@code BiDirConnectionInitializer} registers exactly those two (JacORB's {@code demo/bidir} uses it).
 *
 * <p>Thread-safe: decisions are kept in a copy-on-write array of weak references, written under the class lock
 * (one creator per ORB, so one log line per ORB), read without locking. Asked only for ORBs that have request
 * interceptors; ORBs without any never get here.
 */
final class JacorbInterceptorRule {

    /** Interceptors known to keep no per-thread state (see the class comment for what each one touches). */
    static final Set<String> THREAD_STATELESS = Set.of(
            "org.jacorb.orb.giop.BiDirConnectionClientInterceptor",
            "org.jacorb.orb.giop.BiDirConnectionServerInterceptor");

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(org.dthreads.iiop.DThreadsOrbInitializer.class);

    /** An ORB's decision: whether its client side and its server side may move; why not (null if both may). */
    private record Decision(WeakReference<Object> orb, boolean client, boolean server, String why) {}

    private static volatile Decision[] decisions = new Decision[0];
    private static volatile Field interceptorsField;

    private JacorbInterceptorRule() {}

    /** Whether calls through {@code orb} (which has client request interceptors) may move. */
    static boolean clientMovable(org.jacorb.orb.ORB orb) {
        return decision(orb).client;
    }

    /** Whether requests served by {@code orb} (which has server request interceptors) may be handed. */
    static boolean serverMovable(org.jacorb.orb.ORB orb) {
        return decision(orb).server;
    }

    private static Decision decision(org.jacorb.orb.ORB orb) {
        for (Decision d : decisions) {
            if (d.orb.get() == orb) {
                return d;
            }
        }
        return decide(orb);
    }

    private static synchronized Decision decide(org.jacorb.orb.ORB orb) {
        List<Decision> next = new ArrayList<>();
        for (Decision d : decisions) {
            Object o = d.orb.get();
            if (o == orb) {
                return d;
            }
            if (o != null) {
                next.add(d);
            }
        }
        Decision d = evaluate(orb);
        next.add(d);
        decisions = next.toArray(new Decision[0]);
        if (d.why != null) {
            LOG.warnOnce(message(orb, d.why)); // once per ORB: decide runs once per ORB (a key per ORB would leak)
        }
        return d;
    }

    /** The line logged once for an ORB kept (wholly or on one side) in take-over mode. */
    static String message(Object orb, String why) {
        return "dthreads: original-thread callbacks are off for this ORB (" + orb.getClass().getName() + "@"
                + Integer.toHexString(System.identityHashCode(orb)) + ") because " + why + "; those calls and"
                + " callbacks run in take-over mode (-Ddthreads.callbacks=original lets through only "
                + THREAD_STATELESS + ", and only on an ORB without PICurrent slots)";
    }

    /** Why {@code orb} is kept in take-over mode on some side, or null if it is not (for tests and the log). */
    static String blocker(org.jacorb.orb.ORB orb) {
        return evaluate(orb).why;
    }

    private static Decision evaluate(org.jacorb.orb.ORB orb) {
        WeakReference<Object> ref = new WeakReference<>(orb);
        try {
            InterceptorManager manager = orb.getInterceptorManager();
            if (manager == null) {
                return new Decision(ref, true, true, null);
            }
            List<String> clientAll = new ArrayList<>();
            List<String> serverAll = new ArrayList<>();
            List<String> client = foreign(manager.getClientIterator(), clientAll);
            List<String> server = foreign(manager.getServerIterator(), serverAll);
            boolean slots;
            try {
                manager.getEmptyCurrent().get_slot(0);
                slots = true;
            } catch (InvalidSlot none) {
                slots = false; // every PICurrent is empty
            }
            // a side without interceptors never touches PICurrent: slots matter only where there are interceptors
            boolean clientOk = client.isEmpty() && (clientAll.isEmpty() || !slots);
            boolean serverOk = server.isEmpty() && (serverAll.isEmpty() || !slots);
            if (clientOk && serverOk) {
                return new Decision(ref, true, true, null);
            }
            String why = !client.isEmpty() || !server.isEmpty()
                    ? "it has Portable Interceptors that may keep per-thread state (PICurrent or their own): client "
                            + client + ", server " + server
                    : "an ORB initializer allocated PICurrent slots, whose thread-scope values a moved call or"
                            + " callback would lose or carry wrongly (its interceptors: client " + clientAll
                            + ", server " + serverAll + ")";
            return new Decision(ref, clientOk, serverOk, why);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return new Decision(ref, false, false, "its interceptors could not be read (" + e + ")");
        }
    }

    /** The class names of the iterator's interceptors outside {@link #THREAD_STATELESS}. */
    private static List<String> foreign(AbstractInterceptorIterator iterator, List<String> all)
            throws ReflectiveOperationException {
        Field f = interceptorsField;
        if (f == null || f.getDeclaringClass() != AbstractInterceptorIterator.class) {
            f = AbstractInterceptorIterator.class.getDeclaredField("interceptors");
            f.setAccessible(true);
            interceptorsField = f;
        }
        List<String> names = new ArrayList<>();
        for (Object i : (Object[]) f.get(iterator)) {
            String name = i.getClass().getName();
            all.add(name);
            if (!THREAD_STATELESS.contains(name)) {
                names.add(name);
            }
        }
        return names;
    }
}
