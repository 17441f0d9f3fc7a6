package org.dthreads.rmi.internal;

import java.lang.reflect.Method;
import java.rmi.Remote;
import java.rmi.ServerException;
import java.rmi.UnexpectedException;
import java.rmi.UnmarshalException;
import java.rmi.server.RemoteRef;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.dthreads.internal.KernelLink;
import org.dthreads.internal.RateLimitedLog;
import org.dthreads.monitor.internal.callbacks.CallbackMode;
import org.dthreads.monitor.internal.callbacks.CallbackOutgoingCall;
import org.dthreads.monitor.spi.OutgoingCalls;

/**
 * Client side of the JRMP retrofit: turns a call of a remote method into a call of its twin, with
 * the calling thread's class as the extra first argument.
 *
 * <p>Called from two places the rewriter patches: the entry of
 * {@code java.rmi.server.RemoteObjectInvocationHandler.invokeRemoteMethod} (every dynamic-proxy
 * stub, however it was obtained) and each {@code RemoteRef.invoke} call site in a legacy
 * {@code *_Stub} class. A method whose interface has no twin (the registry, DGC, JMX and other JDK
 * interfaces, or an interface loaded before the agent) goes the plain way untouched.
 *
 * <h2>Mixed deployments</h2>
 * A server without dthreads rejects the twin's hash ({@code UnmarshalException: unrecognized method
 * hash}, or {@code invalid method hash} from an rmic skeleton; see {@link #isUnknownMethodHash}) before
 * running anything, so the call is retried with
 * the plain method, and the endpoint/interface pair is remembered as plain from then on (logged
 * once per pair and minute).
 *
 * <h2>Threading</h2>
 * Called concurrently by any application thread. The twin table is a {@link ClassValue} (computed
 * once per interface); the plain-endpoint set is a concurrent set, bounded. Never throws anything
 * the plain path would not have thrown. With {@code -Ddthreads.callbacks=original} ({@link CallbackMode}) the
 * twin call is made by a helper thread while the calling thread waits on its mailbox and runs the callbacks of
 * its class meanwhile ({@link CallbackOutgoingCall}).
 *
 * <p>Runs on the bootstrap path; JDK, dthreads-api and monitor-lib runtime types only.
 */
public final class RmiClientHook {

    /** Returned when the hook did not make the call: the caller proceeds with the plain call. */
    public static final Object NOT_HANDLED = new Object();

    static final int MAX_PLAIN_ENDPOINTS = 10_000;

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(RmiClientHook.class);
    private static final Pattern ENDPOINT = Pattern.compile("endpoint:\\[([^\\]]*)\\]");

    private record Twin(Method method, long hash) {}

    private static final ClassValue<Map<Method, Twin>> TWINS = new ClassValue<>() {
        @Override
        protected Map<Method, Twin> computeValue(Class<?> type) {
            if (!type.isInterface() || !Remote.class.isAssignableFrom(type)) {
                return Collections.emptyMap();
            }
            Map<Method, Twin> twins = new HashMap<>();
            for (Method m : type.getDeclaredMethods()) {
                if (Twins.isTwinName(m.getName()) || java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
                    continue;
                }
                Class<?>[] plain = m.getParameterTypes();
                Class<?>[] withClass = new Class<?>[plain.length + 1];
                withClass[0] = long.class;
                System.arraycopy(plain, 0, withClass, 1, plain.length);
                try {
                    Method twin = type.getMethod(Twins.twinName(m.getName()), withClass);
                    if (twin.getReturnType() == m.getReturnType()) {
                        twins.put(m, new Twin(twin, Twins.methodHash(twin)));
                    }
                } catch (NoSuchMethodException noTwin) {
                    // not rewritten: plain calls
                }
            }
            return twins.isEmpty() ? Collections.emptyMap() : Map.copyOf(twins);
        }
    };

    private static final Map<String, Boolean> PLAIN_ENDPOINTS = new ConcurrentHashMap<>();

    private RmiClientHook() {}

    /**
     * The prologue of {@code RemoteObjectInvocationHandler.invokeRemoteMethod}: makes the twin call
     * and returns its result, or returns {@link #NOT_HANDLED} for the plain path. Exceptions are
     * those the plain path would throw for the same outcome.
     */
    public static Object invokeProxy(Object proxy, Method method, Object[] args, RemoteRef ref) throws Exception {
        Twin twin = twinOf(method);
        if (twin == null || !(proxy instanceof Remote) || ref == null) {
            return NOT_HANDLED;
        }
        try {
            return callTwin(ref, (Remote) proxy, method, twin, args);
        } catch (PlainOnly p) {
            return NOT_HANDLED;
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            // As RemoteObjectInvocationHandler does: a checked exception the method does not declare
            // reaches the caller as UnexpectedException.
            Method declared = proxy.getClass().getMethod(method.getName(), method.getParameterTypes());
            for (Class<?> allowed : declared.getExceptionTypes()) {
                if (allowed.isInstance(e)) {
                    throw e;
                }
            }
            throw new UnexpectedException("unexpected exception", e);
        }
    }

    /**
     * Replaces {@code ref.invoke(stub, method, args, hash)} in legacy {@code *_Stub} classes.
     */
    public static Object invokeStub(RemoteRef ref, Remote stub, Method method, Object[] args, long hash)
            throws Exception {
        Twin twin = twinOf(method);
        if (twin != null) {
            try {
                return callTwin(ref, stub, method, twin, args);
            } catch (PlainOnly p) {
                // fall through to the plain call
            }
        }
        return ref.invoke(stub, method, args, hash);
    }

    private static Object callTwin(RemoteRef ref, Remote target, Method method, Twin twin, Object[] args)
            throws Exception {
        String key = PLAIN_ENDPOINTS.isEmpty() ? null : plainKey(ref, method);
        if (key != null && PLAIN_ENDPOINTS.containsKey(key)) {
            throw PlainOnly.INSTANCE;
        }
        int n = args == null ? 0 : args.length;
        Object[] twinArgs = new Object[n + 1];
        long threadClass = KernelLink.currentClass();
        twinArgs[0] = threadClass;
        if (n > 0) {
            System.arraycopy(args, 0, twinArgs, 1, n);
        }
        // While this thread waits for the reply it is suspended: a callback serving this call chain may
        // act as the owner of the monitors the class holds (see OutgoingCalls).
        OutgoingCalls.begin(target); // an interrupt of this thread is forwarded to the target's site
        try {
            Object result = CallbackMode.ORIGINAL // a static final: the default mode keeps the direct call
                    ? CallbackOutgoingCall.invoke(ref, target, twin.method(), twinArgs, twin.hash(), threadClass)
                    : ref.invoke(target, twin.method(), twinArgs, twin.hash());
            sayHello(ref, target);
            return result;
        } catch (ServerException e) {
            if (isUnknownMethodHash(e)) {
                rememberPlain(ref, method);
                throw PlainOnly.INSTANCE;
            }
            throw e;
        } finally {
            OutgoingCalls.end();
        }
    }

    /** Tells the peer this site's id and incarnation now and then ({@link SiteHellos}); never fails the call. */
    private static void sayHello(RemoteRef ref, Remote target) {
        try {
            SiteHellos.afterTwinCall(ref, target);
        } catch (LinkageError e) {
            // SiteHellos not visible from here (a hand-made boot path without it): no hellos, the call goes on
        }
    }

    /**
     * Whether a server rejected the method hash before running anything (no such method there: no dthreads).
     * Every way a JDK 17 server refuses an unknown hash, each wrapped by {@code UnicastServerRef} in a
     * {@code ServerException}:
     * <ul>
     *   <li>{@code UnicastServerRef}'s own method table: {@code UnmarshalException("unrecognized method hash:
     *       method not supported by remote object")};</li>
     *   <li>an rmic skeleton ({@code *_Skel}, which {@code UnicastServerRef} dispatches through when the
     *       implementation has a static stub): {@code UnmarshalException("invalid method hash")};</li>
     *   <li>a skeleton that checks its interface hash: {@code SkeletonMismatchException}.</li>
     * </ul>
     * Each is thrown before the arguments are read, so retrying with the plain method runs the method once.
     */
    @SuppressWarnings("deprecation")
    static boolean isUnknownMethodHash(ServerException e) {
        Throwable cause = e.getCause();
        if (cause instanceof java.rmi.server.SkeletonMismatchException) {
            return true;
        }
        if (!(cause instanceof UnmarshalException)) {
            return false;
        }
        String message = String.valueOf(cause.getMessage());
        return message.contains("unrecognized method hash") || message.contains("invalid method hash");
    }

    private static void rememberPlain(RemoteRef ref, Method method) {
        String key = plainKey(ref, method);
        if (PLAIN_ENDPOINTS.size() < MAX_PLAIN_ENDPOINTS) {
            PLAIN_ENDPOINTS.put(key, Boolean.TRUE);
        }
        LOG.warn("plain-server", "dthreads: " + key + " does not run dthreads (it rejected the twin of "
                + method.getName() + "); calling it without thread identity. A zigzag through it can deadlock.");
    }

    private static String plainKey(RemoteRef ref, Method method) {
        return endpointOf(ref) + " " + method.getDeclaringClass().getName();
    }

    /**
     * The endpoint of {@code ref}, cached per reference (by identity: a stub keeps its reference for life),
     * so that once a plain server is known, twin calls do not parse {@code remoteToString()} each time. The
     * cache is cleared when it reaches {@link #MAX_PLAIN_ENDPOINTS} references.
     */
    static String endpointOf(RemoteRef ref) {
        String cached = ENDPOINTS.get(ref);
        if (cached != null) {
            return cached;
        }
        String where = ref.remoteToString();
        Matcher m = ENDPOINT.matcher(where);
        String endpoint = m.find() ? m.group(1) : where;
        if (ENDPOINTS.size() >= MAX_PLAIN_ENDPOINTS) {
            ENDPOINTS.clear();
        }
        ENDPOINTS.put(ref, endpoint);
        return endpoint;
    }

    private static final Map<RemoteRef, String> ENDPOINTS = new ConcurrentHashMap<>();

    /** The twin of {@code method}, or null if its interface has none. */
    static Method twinMethod(Method method) {
        Twin twin = twinOf(method);
        return twin == null ? null : twin.method();
    }

    private static Twin twinOf(Method method) {
        try {
            return TWINS.get(method.getDeclaringClass()).get(method);
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("twin-lookup-failed", "dthreads: cannot look up the twin of " + method + ": " + e
                    + "; calling without thread identity");
            return null;
        }
    }

    /** For tests: forget which endpoints were found plain. */
    static void forgetPlainEndpoints() {
        PLAIN_ENDPOINTS.clear();
    }

    /** Control flow only: the endpoint has no twins, use the plain call. */
    private static final class PlainOnly extends Exception {
        static final PlainOnly INSTANCE = new PlainOnly();

        private PlainOnly() {
            super(null, null, false, false);
        }
    }

}
