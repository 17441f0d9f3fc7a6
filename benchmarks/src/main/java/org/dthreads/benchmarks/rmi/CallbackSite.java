package org.dthreads.benchmarks.rmi;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import org.dthreads.benchmarks.rmi.twinned.Bounce;

/**
 * One JVM of {@link CallbackLatency}: exports a {@link Bounce}, prints {@code READY <registry port>}, then obeys
 * its standard input: {@code peer <port>} looks the other JVM's object up; {@code run <depth> <calls>} makes
 * {@code calls} calls {@code peer.bounce(self, depth)} on this (the reading) thread and prints
 * {@code MEDIAN <ns>} (on a virtual thread with {@code -Dbench.virtualCaller=true}: {@link CallbackRuns});
 * {@code where} prints where the {@code bounce}s served here ran. Ends when its input closes.
 */
public final class CallbackSite implements Bounce {

    private final CallbackRuns runs = new CallbackRuns();
    private Bounce self;
    private int sink;

    @Override
    public int bounce(Bounce back, int depth) throws RemoteException {
        runs.served();
        return depth == 0 ? ++sink : back.bounce(self, depth - 1) + 1;
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("java.rmi.server.hostname", "127.0.0.1");
        CallbackSite site = new CallbackSite();
        site.self = (Bounce) UnicastRemoteObject.exportObject(site, 0);
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        Registry registry = LocateRegistry.createRegistry(port);
        registry.rebind("bounce", site.self);
        System.out.println("READY " + port);
        System.out.flush();
        Bounce peer = null;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] words = line.trim().split(" ");
            if (words[0].equals("peer")) {
                peer = (Bounce) LocateRegistry.getRegistry("127.0.0.1", Integer.parseInt(words[1])).lookup("bounce");
                System.out.println("OK");
            } else if (words[0].equals("run")) {
                int depth = Integer.parseInt(words[1]);
                Bounce target = peer;
                System.out.println(site.runs.run(() -> {
                    try {
                        target.bounce(site.self, depth);
                    } catch (RemoteException e) {
                        throw new IllegalStateException(e);
                    }
                }, Integer.parseInt(words[2])));
            } else if (words[0].equals("where")) {
                System.out.println(site.runs.where());
            }
            System.out.flush();
        }
        System.exit(0);
    }
}
