package org.dthreads.rmi.testing;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.RemoteObject;
import java.rmi.server.UnicastRemoteObject;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.rmi.fixture.Echo;
import org.dthreads.rmi.fixture.EchoException;
import org.dthreads.rmi.fixture.EchoImpl;
import org.dthreads.rmi.fixture.EchoLegacyStub;

/**
 * A forked site. {@code server}: exports an {@link EchoImpl} in a registry on a free port, prints
 * {@code READY port=N}, and runs until its standard input closes. {@code client PORT}: calls it and
 * prints {@code key=value} lines.
 */
public final class RmiSite {
    private RmiSite() {}

    public static void main(String[] args) throws Exception {
        System.setProperty("java.rmi.server.hostname", "127.0.0.1");
        if (args[0].equals("server") || args[0].equals("server-ssl")) {
            server(args[0].equals("server-ssl"));
        } else {
            try {
                client(Integer.parseInt(args[1]));
            } catch (Throwable t) {
                t.printStackTrace();
                System.exit(1); // exported callbacks keep non-daemon RMI threads alive
            }
        }
    }

    private static void server(boolean ssl) throws Exception {
        EchoImpl impl = new EchoImpl();
        Echo stub = ssl
                ? (Echo) UnicastRemoteObject.exportObject(impl, 0, new javax.rmi.ssl.SslRMIClientSocketFactory(),
                        new javax.rmi.ssl.SslRMIServerSocketFactory())
                : (Echo) UnicastRemoteObject.exportObject(impl, 0);
        impl.exportedAs(stub);
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        Registry registry = LocateRegistry.createRegistry(port);
        registry.rebind("echo", stub);
        System.out.println("READY port=" + port + " site=" + Integer.toUnsignedString(DThreads.siteId()));
        System.out.flush();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in))) {
            while (in.readLine() != null) {
                // run until the test closes our input
            }
        }
        UnicastRemoteObject.unexportObject(impl, true);
        UnicastRemoteObject.unexportObject(registry, true);
    }

    private static void client(int port) throws Exception {
        Registry registry = LocateRegistry.getRegistry("127.0.0.1", port);
        Echo echo = (Echo) registry.lookup("echo");
        print("client", ThreadClass.format(DThreads.currentClass()));
        print("server", ThreadClass.format(echo.callerClass()));
        print("server.again", ThreadClass.format(echo.callerClass()));
        print("returned", ThreadClass.format(echo.self().callerClass()));
        EchoImpl back = new EchoImpl();
        Echo backStub = (Echo) UnicastRemoteObject.exportObject(back, 0);
        print("callback", ThreadClass.format(echo.callBack(backStub)));
        print("concat", echo.concat("a", "b"));
        print("mix", String.valueOf(echo.mix(1, 2L, 0.5, true)));
        try {
            echo.fail("boom");
            print("fail", "no exception");
        } catch (EchoException e) {
            print("fail", "EchoException:" + e.getMessage());
        }
        RemoteObject handler = (RemoteObject) Proxy.getInvocationHandler(echo);
        Echo legacy = new EchoLegacyStub(handler.getRef());
        print("legacy.server", ThreadClass.format(legacy.callerClass()));
        print("legacy.callback", ThreadClass.format(legacy.callBack(backStub)));
        print("client.after", ThreadClass.format(DThreads.currentClass()));
        UnicastRemoteObject.unexportObject(back, true);
        System.exit(0);
    }

    private static void print(String key, String value) {
        System.out.println(key + "=" + value);
        System.out.flush();
    }
}
