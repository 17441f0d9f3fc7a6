package org.dthreads.rmi;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.rmi.Remote;
import java.rmi.server.RemoteObject;
import java.rmi.server.RemoteRef;
import org.dthreads.rmi.internal.RmiClientHook;

/**
 * Thread identity over JRMP without the agent, for deployments that forbid agents.
 *
 * <p>With the agent nothing here is needed. Without it:
 * <ol>
 *   <li>rewrite the application's classes at build time with the offline instrumenter, so remote
 *       interfaces have their twin methods and monitors are emulated (both client and server);</li>
 *   <li>put {@code dthreads-api}, {@code monitor-lib} and {@code rmi-adapter} on the class path;</li>
 *   <li>on the client, pass every stub through {@link #wrap} before calling it: the JDK's stub
 *       handler cannot be patched without an agent, so a plain stub calls the plain method and the
 *       server serves it under a fresh class.</li>
 * </ol>
 *
 * <p>Limits: stubs that arrive as arguments or return values must be wrapped too (the server side
 * of a callback chain wraps the callback stubs it receives); a wrapped stub is for calling, not for
 * sending: pass the original stub as an argument ({@link #unwrap}); {@code equals} between a wrapped
 * and a plain stub is true one way only.
 *
 * <p>Thread-safe; wrapped stubs may be shared between threads like plain ones.
 */
public final class DThreadsRmi {

    static {
        // synchronized (wrappedStub) in rewritten code goes to the object's site
        org.dthreads.rmi.internal.JrmpMonitorTransport.register();
    }

    private DThreadsRmi() {}

    /**
     * A stub that carries the calling thread's class on every call whose interface has twins, and
     * calls the plain method otherwise (interfaces without twins, servers without dthreads).
     *
     * @param stub a JRMP stub: a dynamic proxy from {@code UnicastRemoteObject}/a registry, or a
     *     legacy {@code RemoteStub}
     * @param <T> the remote interface type the caller uses
     * @return a stub implementing the same interfaces; {@code stub} itself if it is already wrapped
     * @throws IllegalArgumentException if {@code stub} is not a JRMP stub
     */
    @SuppressWarnings("unchecked")
    public static <T extends Remote> T wrap(T stub) {
        if (isWrapped(stub)) {
            return stub;
        }
        RemoteRef ref = refOf(stub);
        return (T) Proxy.newProxyInstance(stub.getClass().getClassLoader(), stub.getClass().getInterfaces(),
                new Carrier(stub, ref));
    }

    /**
     * The plain stub behind a wrapped one (for sending as an argument), or {@code stub} itself.
     *
     * @param stub a stub, wrapped or not
     * @param <T> its type
     * @return the stub to send
     */
    @SuppressWarnings("unchecked")
    public static <T extends Remote> T unwrap(T stub) {
        return isWrapped(stub) ? (T) ((Carrier) Proxy.getInvocationHandler(stub)).stub : stub;
    }

    /**
     * Whether {@code stub} was made by {@link #wrap}.
     *
     * @param stub any object
     * @return true for a wrapped stub
     */
    public static boolean isWrapped(Object stub) {
        return stub != null && Proxy.isProxyClass(stub.getClass()) && Proxy.getInvocationHandler(stub) instanceof Carrier;
    }

    private static RemoteRef refOf(Remote stub) {
        if (stub instanceof RemoteObject remoteObject) {
            return remoteObject.getRef(); // legacy RemoteStub
        }
        if (Proxy.isProxyClass(stub.getClass()) && Proxy.getInvocationHandler(stub) instanceof RemoteObject handler) {
            return handler.getRef(); // RemoteObjectInvocationHandler
        }
        throw new IllegalArgumentException("not a JRMP stub: " + stub.getClass().getName());
    }

    private static final class Carrier implements InvocationHandler, org.dthreads.rmi.internal.RemoteRefCarrier {
        private final Remote stub;
        private final RemoteRef ref;

        Carrier(Remote stub, RemoteRef ref) {
            this.stub = stub;
            this.ref = ref;
        }

        @Override
        public RemoteRef remoteRef() {
            return ref;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "equals" -> stub.equals(unwrapArg(args[0]));
                    case "hashCode" -> stub.hashCode();
                    case "toString" -> "dthreads:" + stub;
                    default -> method.invoke(stub, args);
                };
            }
            Object result = RmiClientHook.invokeProxy(stub, method, args, ref);
            if (result != RmiClientHook.NOT_HANDLED) {
                return result;
            }
            try {
                return method.invoke(stub, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }

        private static Object unwrapArg(Object o) {
            return isWrapped(o) ? ((Carrier) Proxy.getInvocationHandler(o)).stub : o;
        }
    }
}
