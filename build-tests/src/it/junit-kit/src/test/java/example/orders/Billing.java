package example.orders;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** Site B: charges an order, checking the stock at the caller's inventory. */
public interface Billing extends Remote {
    String charge(String item, Inventory inventory) throws RemoteException;
}
