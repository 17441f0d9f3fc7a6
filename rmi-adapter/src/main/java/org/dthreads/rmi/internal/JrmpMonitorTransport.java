package org.dthreads.rmi.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.rmi.Remote;
import java.rmi.ServerException;
import java.rmi.server.RemoteObject;
import java.rmi.server.RemoteRef;
import org.dthreads.monitor.RemoteMonitorException;
import org.dthreads.monitor.spi.RemoteMonitorTransport;
import org.dthreads.monitor.spi.RemoteMonitors;

/**
 * Carries monitor operations on JRMP stubs to the object's site: a call of {@link MonitorPort#dthreads$monitor}
 * through the stub's own {@link RemoteRef} (its endpoint and socket factories, SSL included). Handles dynamic
 * proxy stubs ({@code RemoteObjectInvocationHandler}), legacy {@code RemoteStub}s and stubs wrapped by
 * {@code DThreadsRmi.wrap}.
 *
 * <h2>Threading</h2>
 * Stateless; {@link #call} runs on the thread doing the monitor operation and blocks it for the call, as
 * any JRMP call does (a socket read: not interruptible). Registered once per JVM by {@link #register}.
 *
 * <p>Runs on the bootstrap class path (JDK, dthreads-api and monitor-lib types only).
 */
public final class JrmpMonitorTransport implements RemoteMonitorTransport {

    static final JrmpMonitorTransport INSTANCE = new JrmpMonitorTransport();

    /** The transport itself, for tests that craft requests (forged classes and tokens). */
    public static final RemoteMonitorTransport INSTANCE_FOR_TESTS = INSTANCE;

    /** The method whose parameter and return types marshal a request; any class's copy would do. */
    static final Method METHOD;
    /**
     * JRMP method hash of {@code dthreads$monitor(int,long,long,long,int)long} ({@code Twins.methodHash}): a
     * constant, not computed in the initializer, which runs at the agent's start, where the SHA-1 digest set up
     * the JDK's security providers (about 100 classes and 0.6 MB of metaspace, issue 16);
     * {@code JrmpMonitorTransportHashTest} checks it against {@link Twins#methodHash}.
     */
    public static final long METHOD_HASH = 0xe3c440d6282b39b1L;
    /** The method of the operations answered with text ({@link MonitorPort#dthreads$diagnose}). */
    static final Method DIAGNOSE_METHOD;
    /** JRMP method hash of {@code dthreads$diagnose(int,long,long,long,int)String}; a constant as above. */
    static final long DIAGNOSE_METHOD_HASH = 0xcf308e8199d71ebdL;

    static {
        try {
            METHOD = MonitorPort.class.getMethod("dthreads$monitor", int.class, long.class, long.class, long.class,
                    int.class);
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
        try {
            DIAGNOSE_METHOD = MonitorPort.class.getMethod("dthreads$diagnose", int.class, long.class, long.class,
                    long.class, int.class);
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private JrmpMonitorTransport() {}

    /** Registers the JRMP transport with the monitor runtime; idempotent. */
    public static void register() {
        RemoteMonitors.register(INSTANCE);
    }

    @Override
    public boolean handles(Object target) {
        return refOf(target) != null;
    }

    @Override
    public long call(Object target, int op, long threadClass, long token, long arg, int nanos)
            throws InterruptedException {
        return (Long) invoke(target, METHOD, METHOD_HASH, new Object[] {op, threadClass, token, arg, nanos});
    }

    @Override
    public String callText(Object target, int op, long threadClass, long token, long arg, int nanos)
            throws InterruptedException {
        return (String) invoke(target, DIAGNOSE_METHOD, DIAGNOSE_METHOD_HASH,
                new Object[] {op, threadClass, token, arg, nanos});
    }

    private Object invoke(Object target, Method method, long hash, Object[] args) throws InterruptedException {
        RemoteRef ref = refOf(target);
        if (ref == null) {
            throw new RemoteMonitorException("dthreads: not a JRMP stub: " + target.getClass().getName());
        }
        try {
            return ref.invoke((Remote) target, method, args, hash);
        } catch (RuntimeException | InterruptedException e) {
            throw e; // IMSE, IAE, NPE, RemoteMonitorException from the site, as thrown there
        } catch (ServerException e) {
            if (RmiClientHook.isUnknownMethodHash(e)) {
                throw new RemoteMonitorException("dthreads: " + describe(target) + " cannot take monitor operations:"
                        + " its site does not run dthreads, or its remote interface was not rewritten there (JDK"
                        + " interfaces, or a package outside the agent's scope); not locking the local stub", e);
            }
            throw failed(target, e);
        } catch (Exception e) {
            throw failed(target, e);
        }
    }

    private RemoteMonitorException failed(Object target, Throwable e) {
        return new RemoteMonitorException("dthreads: monitor operation on " + describe(target) + " failed: " + e, e);
    }

    @Override
    public String describe(Object target) {
        RemoteRef ref = refOf(target);
        String where = "?";
        if (ref != null) {
            try {
                where = RmiClientHook.endpointOf(ref);
            } catch (RuntimeException e) {
                // keep "?"
            }
        }
        Class<?>[] interfaces = target.getClass().getInterfaces();
        String type = Proxy.isProxyClass(target.getClass()) && interfaces.length > 0 ? interfaces[0].getName()
                : target.getClass().getName();
        return type + " at " + where + " (JRMP)";
    }

    /** The stub's reference, or null if {@code target} is not a JRMP stub. */
    static RemoteRef refOf(Object target) {
        if (target instanceof RemoteObject stub && target instanceof java.rmi.server.RemoteStub) {
            return stub.getRef();
        }
        if (target != null && Proxy.isProxyClass(target.getClass()) && target instanceof Remote) {
            InvocationHandler h = Proxy.getInvocationHandler(target);
            if (h instanceof RemoteObject handler) {
                return handler.getRef();
            }
            if (h instanceof RemoteRefCarrier carrier) {
                return carrier.remoteRef();
            }
        }
        return null;
    }
}
