package example.conformance;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.UnexpectedException;
import java.rmi.server.RemoteObject;
import java.rmi.server.RemoteRef;
import java.rmi.server.UnicastRemoteObject;
import org.dthreads.DThreads;

/**
 * Whether a JRMP call carries the caller's thread class, through a dynamic proxy and through a
 * legacy static stub (needs dthreads on the class path: run with the agent or after the offline
 * instrumenter).
 */
public final class IdentitySite {

    public interface Who extends Remote {
        long who() throws RemoteException;
    }

    static final class Impl implements Who {
        @Override
        public long who() {
            return DThreads.currentClass();
        }
    }

    @SuppressWarnings({"deprecation", "removal"})
    public static final class WhoLegacyStub extends java.rmi.server.RemoteStub implements Who {
        private static final long serialVersionUID = 1L;
        private static final Method WHO;
        private static final long WHO_HASH;

        static {
            try {
                WHO = Who.class.getMethod("who");
                WHO_HASH = EchoLegacyStub.hash("who()J");
            } catch (Exception e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        public WhoLegacyStub(RemoteRef ref) {
            super(ref);
        }

        @Override
        public long who() throws RemoteException {
            try {
                return (Long) ref.invoke(this, WHO, null, WHO_HASH);
            } catch (RuntimeException | RemoteException e) {
                throw e;
            } catch (Exception e) {
                throw new UnexpectedException("undeclared checked exception", e);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Impl impl = new Impl();
        Who proxy = (Who) UnicastRemoteObject.exportObject(impl, 0);
        try {
            Who legacy = new WhoLegacyStub(((RemoteObject) Proxy.getInvocationHandler(proxy)).getRef());
            long caller = DThreads.currentClass();
            System.out.println("proxy carries the caller's class: " + (proxy.who() == caller));
            System.out.println("legacy stub carries the caller's class: " + (legacy.who() == caller));
            System.out.println("wrapped proxy carries the caller's class: "
                    + (org.dthreads.rmi.DThreadsRmi.wrap(proxy).who() == caller));
        } finally {
            UnicastRemoteObject.unexportObject(impl, true);
        }
    }
}
