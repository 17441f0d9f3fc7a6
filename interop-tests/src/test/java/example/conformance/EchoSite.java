package example.conformance;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.server.UnicastRemoteObject;
import java.util.Arrays;

/** A JRMP call inside one JVM through an exported object; prints the remote interface's methods (twins included). */
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
        } finally {
            UnicastRemoteObject.unexportObject(impl, true);
        }
    }
}
