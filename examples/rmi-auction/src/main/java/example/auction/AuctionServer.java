package example.auction;

import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The auction server. Its model is guarded the usual way: every method is synchronized, and
 * {@code bid} tells the listeners while it holds the monitor, so that they hear of bids in order.
 * A listener that asks the auction anything back ({@code highestBid}) then calls into a monitor its
 * own call chain holds, from another thread: a distributed deadlock, unless dthreads runs.
 */
public final class AuctionServer implements Auction {

    private final List<BidListener> listeners = new ArrayList<>();
    private String highestBidder;
    private int highestAmount;

    @Override
    public synchronized void addListener(BidListener listener) {
        listeners.add(listener);
    }

    @Override
    public synchronized boolean bid(String bidder, int amount) throws RemoteException {
        if (amount <= highestAmount) {
            return false;
        }
        highestBidder = bidder;
        highestAmount = amount;
        for (BidListener listener : listeners) {
            listener.newBid(bidder, amount);
        }
        return true;
    }

    @Override
    public synchronized String highestBid() {
        return highestBidder == null ? "none" : highestBidder + " " + highestAmount;
    }

    /** Exports a new auction and binds it as "auction" in {@code registry}. */
    public static Auction export(Registry registry) throws RemoteException {
        AuctionServer server = new AuctionServer();
        Auction stub = (Auction) UnicastRemoteObject.exportObject(server, 0);
        registry.rebind("auction", stub);
        return stub;
    }

    /** {@code AuctionServer [port]}: serves until killed; port 0 picks a free one. */
    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : Registry.REGISTRY_PORT;
        Registry registry = LocateRegistry.createRegistry(port);
        export(registry);
        System.out.println("auction ready on port " + port);
    }
}
