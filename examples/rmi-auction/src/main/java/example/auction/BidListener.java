package example.auction;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** Called back by the auction, on the bidder's side, for every accepted bid. */
public interface BidListener extends Remote {

    void newBid(String bidder, int amount) throws RemoteException;
}
