package example.auction;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** An auction for one item. Bidders register a listener and hear of every bid. */
public interface Auction extends Remote {

    void addListener(BidListener listener) throws RemoteException;

    /** Places a bid; returns whether it is now the highest. */
    boolean bid(String bidder, int amount) throws RemoteException;

    /** The highest bid so far, as "bidder amount", or "none". */
    String highestBid() throws RemoteException;
}
