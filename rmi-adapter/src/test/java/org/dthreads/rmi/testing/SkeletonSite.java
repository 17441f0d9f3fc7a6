package org.dthreads.rmi.testing;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.rmi.fixture.Skeletal;
import org.dthreads.rmi.fixture.SkeletalImpl;

/**
 * A forked site around {@link SkeletalImpl} (static stub and skeleton). {@code server}: exports it in a
 * registry on a free port, prints {@code READY port=N stub=...}, runs until its input closes.
 * {@code client PORT}: calls it and prints {@code key=value} lines.
 */
public final class SkeletonSite {
    private SkeletonSite() {}

    public static void main(String[] args) throws Exception {
        System.setProperty("java.rmi.server.hostname", "127.0.0.1");
        if (args[0].equals("server")) {
            SkeletalImpl impl = new SkeletalImpl();
            Skeletal stub = (Skeletal) UnicastRemoteObject.exportObject(impl, 0);
            int port;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort();
            }
            Registry registry = LocateRegistry.createRegistry(port);
            registry.rebind("skeletal", stub);
            System.out.println("READY port=" + port + " stub=" + stub.getClass().getSimpleName());
            System.out.flush();
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in))) {
                while (in.readLine() != null) {
                    // run until the test closes our input
                }
            }
            System.exit(0);
        }
        try {
            Skeletal remote = (Skeletal) LocateRegistry.getRegistry("127.0.0.1", Integer.parseInt(args[1])).lookup("skeletal");
            print("stub", remote.getClass().getSimpleName());
            print("client", ThreadClass.format(DThreads.currentClass()));
            print("add", String.valueOf(remote.add(2, 3)));
            print("server", ThreadClass.format(remote.callerClass()));
            print("add.again", String.valueOf(remote.add(4, 5)));
            System.exit(0);
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(1);
        }
    }

    private static void print(String key, String value) {
        System.out.println(key + "=" + value);
        System.out.flush();
    }
}
