package org.dthreads.benchmarks.rmi;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import org.dthreads.benchmarks.rmi.plain.PlainEmpty;
import org.dthreads.benchmarks.rmi.twinned.Empty;

/** The server JVM of {@link Table3}: one object with both interfaces; runs until stdin closes. */
public final class EmptyServer implements Empty, PlainEmpty {

    @Override
    public void m0() {}

    @Override
    public void m1(String a) {}

    @Override
    public void m2(String a, String b) {}

    public static void main(String[] args) throws Exception {
        System.setProperty("java.rmi.server.hostname", "127.0.0.1");
        EmptyServer server = new EmptyServer();
        java.rmi.Remote stub = UnicastRemoteObject.exportObject(server, 0);
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        Registry registry = LocateRegistry.createRegistry(port);
        registry.rebind("empty", stub);
        System.out.println("READY " + port);
        System.out.flush();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in))) {
            while (in.readLine() != null) {
                // until the client closes our input
            }
        }
        System.exit(0);
    }
}
