package example.auction;

import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Two bidders in one client: each registers a listener that, on a rival's bid, looks up the
 * highest bid at the auction (a call back into the server while it notifies).
 */
public final class Bidder implements BidListener {

    private final String name;
    private final Auction auction;
    private final List<String> log;

    private Bidder(String name, Auction auction, List<String> log) {
        this.name = name;
        this.auction = auction;
        this.log = log;
    }

    @Override
    public void newBid(String bidder, int amount) throws RemoteException {
        if (!bidder.equals(name)) {
            log.add(name + " hears " + bidder + " bid " + amount + "; highest now: " + auction.highestBid());
        }
    }

    /** Alice and Bob bid against each other; returns what they heard. */
    public static List<String> run(Auction auction) throws RemoteException {
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        List<Bidder> bidders = List.of(new Bidder("alice", auction, log), new Bidder("bob", auction, log));
        try {
            for (Bidder b : bidders) {
                auction.addListener((BidListener) UnicastRemoteObject.exportObject(b, 0));
            }
            auction.bid("alice", 100);
            auction.bid("bob", 120);
            auction.bid("alice", 150);
            log.add("sold to " + auction.highestBid());
            return List.copyOf(log);
        } finally {
            for (Bidder b : bidders) {
                UnicastRemoteObject.unexportObject(b, true);
            }
        }
    }

    /** {@code Bidder [host [port]]} */
    public static void main(String[] args) throws Exception {
        String host = args.length > 0 ? args[0] : "localhost";
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 1099;
        Auction auction = (Auction) LocateRegistry.getRegistry(host, port).lookup("auction");
        run(auction).forEach(System.out::println);
    }
}
