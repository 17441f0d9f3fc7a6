package example.conformance;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.server.UnicastRemoteObject;
import java.util.Arrays;

/**
 * A JRMP call inside one JVM through an exported object; prints the remote interface's methods (twins included)
 * and whether {@code synchronized (stub)} excludes the object's own synchronized method.
 */
public final class EchoSite {

    public interface Echo extends Remote {
        String echo(String s) throws RemoteException;
    }

    static final class Impl implements Echo {
        @Override
        public synchronized String echo(String s) {
            return "echo " + s + ", held " + Thread.holdsLock(this);
        }
    }

    /**
     * Whether, inside {@code synchronized (stub)}, another thread's direct call of the object's synchronized
     * method waits: with dthreads the block holds the object's monitor at its site (here the same JVM); without,
     * it locks the local stub only.
     */
    static boolean excludes(Echo stub, Impl impl) throws InterruptedException {
        Thread other = new Thread(() -> impl.echo("other"), "other");
        synchronized (stub) {
            other.start();
            other.join(500);
            boolean waited = other.isAlive();
            return waited;
        }
    }

    public static void main(String[] args) throws Exception {
        Impl impl = new Impl();
        Echo stub = (Echo) UnicastRemoteObject.exportObject(impl, 0);
        try {
            System.out.println(stub.echo("hi"));
            EchoLegacyStub legacy = new EchoLegacyStub(
                    ((java.rmi.server.RemoteObject) java.lang.reflect.Proxy.getInvocationHandler(stub)).getRef());
            System.out.println("legacy stub: " + legacy.echo("there"));
            System.out.println("methods: " + Arrays.stream(Echo.class.getDeclaredMethods())
                    .map(m -> m.getName().startsWith("echo") ? m.getName() : "?").sorted().toList());
            System.out.println("synchronized (stub) excludes the object's own synchronized method: " + excludes(stub, impl));
        } finally {
            UnicastRemoteObject.unexportObject(impl, true);
        }
    }
}
